import Dispatch
import Foundation
import Search

// usage: ContentsProbe DATA_DIR QUERIES RESULTS [LIMIT]
// DATA_DIR holds schema.json and contents.ndjson (Benchmarks/Collections/make-contents-data); QUERIES
// has one query a line; RESULTS gets, per query, `query<TAB>id,id,...` (its first LIMIT hits, default 10).
let args = CommandLine.arguments
guard args.count >= 4 else {
    FileHandle.standardError.write(Data("usage: ContentsProbe DATA_DIR QUERIES RESULTS [LIMIT]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: args[1])
let limit = args.count > 4 ? Int(args[4]) ?? 10 : 10
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

let queries = try String(contentsOf: URL(fileURLWithPath: args[2]), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
var output = ""
var times: [UInt64] = []
for query in queries where !query.isEmpty {
    let before = DispatchTime.now().uptimeNanoseconds
    let result = index.search(CollectionQuery(text: String(query), limit: limit))
    times.append(DispatchTime.now().uptimeNanoseconds - before)
    output += "\(query)\t\(result.hits.map(\.id).joined(separator: ","))\n"
}
try output.write(to: URL(fileURLWithPath: args[3]), atomically: true, encoding: .utf8)
times.sort()
if !times.isEmpty {
    let p50 = Double(times[times.count / 2]) / 1e3, p99 = Double(times[min(times.count - 1, times.count * 99 / 100)]) / 1e3
    FileHandle.standardError.write(Data("ContentsProbe: \(times.count) queries, p50 \(String(format: "%.0f", p50)) µs, p99 \(String(format: "%.0f", p99)) µs\n".utf8))
}
