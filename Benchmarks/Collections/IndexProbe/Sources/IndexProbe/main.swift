import Dispatch
import Foundation
import Search

// usage: IndexProbe LIMIT [build] [import2000] [import16000] [lookup] (all when none is named); data in
// /work/data/contents (Benchmarks/Collections/make-contents-data).
let args = CommandLine.arguments
let limit = args.count > 1 ? Int(args[1])! : 1_000_000
let phases = Set(args.dropFirst(2))
let schemaJSON = Array(try Data(contentsOf: URL(fileURLWithPath: "/work/data/contents/schema.json")))
let schema = try CollectionSchema.decode(json: schemaJSON)
let data = try Data(contentsOf: URL(fileURLWithPath: "/work/data/contents/contents.ndjson"))
var read: [[UInt8]] = []
read.reserveCapacity(limit)
data.withUnsafeBytes { raw in
    let bytes = raw.bindMemory(to: UInt8.self)
    var start = 0
    for i in 0..<bytes.count where bytes[i] == 0x0A {
        read.append(Array(bytes[start..<i]))
        start = i + 1
        if read.count == limit { break }
    }
}
let lines = read
func time<T>(_ label: String, count: Int = lines.count, _ body: () throws -> T) rethrows -> T {
    let started = DispatchTime.now().uptimeNanoseconds
    let result = try body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    print("\(label): \(String(format: "%.2f", seconds)) s, \(String(format: "%.0f", Double(count) / seconds)) docs/s")
    return result
}
let decoder = CollectionDocumentDecoder(schema: schema)
let documents = try time("decode \(lines.count) lines (one thread)") { try lines.map { try decoder.decode($0) } }
if phases.isEmpty || phases.contains("build") {
    let cpu = clock()
    let index = time("build one index of them (start path)") { CollectionIndex(schema: schema, documents: documents) }
    print("  count \(index.count), CPU \(Double(clock() - cpu) / Double(CLOCKS_PER_SEC)) s")
}
for batch in [2000, 16000] where phases.isEmpty || phases.contains("import\(batch)") {
    let index = CollectionIndex(schema: schema)
    let cpu = clock()
    time("apply in batches of \(batch) (import path)") {
        for start in stride(from: 0, to: documents.count, by: batch) {
            index.apply(documents[start..<min(start + batch, documents.count)].map { CollectionChange.upsert($0) })
        }
    }
    print("  count \(index.count), CPU \(Double(clock() - cpu) / Double(CLOCKS_PER_SEC)) s")
}
if phases.isEmpty || phases.contains("lookup") {
    // Id look-ups in an index the import path made (segments, merges): ids not there (an import of new
    // documents), then ids there, in batches of 2,000 (`contains(ids:)`, an import's) and one at a time
    // (`contains(id:)`, a GET's or PUT's). Timed in this thread's CPU: the machine is shared.
    let index = CollectionIndex(schema: schema)
    for start in stride(from: 0, to: documents.count, by: 16_000) {
        index.apply(documents[start..<min(start + 16_000, documents.count)].map { CollectionChange.upsert($0) })
    }
    index.waitForMerges()
    var generator = SystemRandomNumberGenerator()
    let present = documents.map(\.id).shuffled(using: &generator)
    let absent = (0..<documents.count).map { String(documents.count * 2 + $0) }
    func threadNanoseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
    }
    for round in 1...3 {
        for (label, ids) in [("absent", absent), ("present", present)] {
            var started = threadNanoseconds()
            var found = 0
            for start in stride(from: 0, to: ids.count, by: 2_000) {
                found += index.contains(ids: Array(ids[start..<min(start + 2_000, ids.count)])).filter { $0 }.count
            }
            let batched = (threadNanoseconds() - started) / Double(ids.count)
            let single = ids.prefix(200_000)
            started = threadNanoseconds()
            let foundOne = single.reduce(0) { $0 + (index.contains(id: $1) ? 1 : 0) }
            let one = (threadNanoseconds() - started) / Double(single.count)
            print("look-up round \(round), \(label) ids: \(String(format: "%.0f", batched)) ns of CPU an id in batches of 2,000 "
                + "(\(found) found), \(String(format: "%.0f", one)) ns one at a time (\(foundOne) found)")
        }
    }
}
