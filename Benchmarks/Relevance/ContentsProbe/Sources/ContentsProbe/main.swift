import Dispatch
import Foundation
import Search

// usage: ContentsProbe DATA_DIR QUERIES RESULTS [LIMIT]
//        ContentsProbe --configuration   (prints `release` or `debug`: the harness refuses a debug build)
// DATA_DIR holds schema.json and contents.ndjson (Benchmarks/Collections/make-contents-data); QUERIES
// has one query a line; RESULTS gets, per query, `query<TAB>id,id,...` (its first LIMIT hits, default 10).
// PROBE_WAIT=1: after indexing, prints `ready` and waits for a line on stdin before the queries (so
// callgrind can start counting there: scripts/profile-contents-search); PROBE_PASSES=N runs the
// queries N times (the results of the last pass are written).
let args = CommandLine.arguments
if args.count == 2, args[1] == "--configuration" {
    #if DEBUG
    print("debug")
    #else
    print("release")
    #endif
    exit(0)
}
guard args.count >= 4 else {
    FileHandle.standardError.write(Data("usage: ContentsProbe DATA_DIR QUERIES RESULTS [LIMIT]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: args[1])
let limit = args.count > 4 ? Int(args[4]) ?? 10 : 10
let environment = ProcessInfo.processInfo.environment
let passes = max(1, Int(environment["PROBE_PASSES"] ?? "") ?? 1)
let schema = try CollectionSchema.decode(json: Array(try Data(contentsOf: directory.appendingPathComponent("schema.json"))))
let data = try Data(contentsOf: directory.appendingPathComponent("contents.ndjson"))
let started = DispatchTime.now().uptimeNanoseconds
var lines: [[UInt8]] = []
data.withUnsafeBytes { raw in
    let bytes = raw.bindMemory(to: UInt8.self)
    var start = 0
    for i in 0..<bytes.count where bytes[i] == 0x0A {
        if i > start { lines.append(Array(bytes[start..<i])) }
        start = i + 1
    }
}
let decoder = CollectionDocumentDecoder(schema: schema)
let documents = lines.compactMap { try? decoder.decode($0) }
let index = CollectionIndex(schema: schema, documents: documents)
let built = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
FileHandle.standardError.write(Data("ContentsProbe: \(index.count) documents indexed in \(String(format: "%.1f", built)) s\n".utf8))

let queries = try String(contentsOf: URL(fileURLWithPath: args[2]), encoding: .utf8)
    .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }.map(String.init)

/// Runs every query once: (its result line, its time in ns). Not inlined: callgrind's
/// `--toggle-collect='*timeQueries*'` counts exactly this.
@inline(never)
func timeQueries(_ queries: [String], index: CollectionIndex, limit: Int) -> [(line: String, nanoseconds: UInt64)] {
    queries.map { query in
        let before = DispatchTime.now().uptimeNanoseconds
        let result = index.search(CollectionQuery(text: query, limit: limit))
        let elapsed = DispatchTime.now().uptimeNanoseconds - before
        return ("\(query)\t\(result.hits.map(\.id).joined(separator: ","))\n", elapsed)
    }
}

if environment["PROBE_WAIT"] == "1" {
    FileHandle.standardError.write(Data("ready\n".utf8))
    _ = readLine()
}
var answered: [(line: String, nanoseconds: UInt64)] = []
for _ in 0..<passes { answered = timeQueries(queries, index: index, limit: limit) }
try answered.map(\.line).joined().write(to: URL(fileURLWithPath: args[3]), atomically: true, encoding: .utf8)
let times = answered.map(\.nanoseconds).sorted()
if !times.isEmpty {
    let p50 = Double(times[times.count / 2]) / 1e3, p99 = Double(times[min(times.count - 1, times.count * 99 / 100)]) / 1e3
    FileHandle.standardError.write(Data("ContentsProbe: \(times.count) queries, p50 \(String(format: "%.0f", p50)) µs, p99 \(String(format: "%.0f", p99)) µs\n".utf8))
}
