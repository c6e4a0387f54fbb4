// The queries of Benchmarks/Collections/keystroke-vs-peers on the engine alone: the first LIMIT
// (default 1,000,000) documents of DIR/contents.ndjson (default /work/data/contents) under
// DIR/schema.json, indexed in one CollectionIndex; then ROUNDS (default 20) rounds after a
// warm-up of every keystroke query with `filter=section = libs` and facets `section,depth`, and
// 5 × ROUNDS of `q` empty with `filter=depth <= 5` and the same facets. Prints p50 and p99 in µs
// of `CollectionIndex.search` alone (what the server's `took_us` adds parsing and JSON to).
//
// With SAVED (a directory, emptied first) the queries run three times: on the index as built
// (bodies in memory), after it is saved there (the same arrays, bodies read from the file with
// `pread`), and on the index restored from there (what a restart serves); with the resident
// memory after each step (VmRSS, the heap trimmed).
//
// For a profile: valgrind --tool=callgrind --instr-atstart=no .build/release/ContentsQueries ...
// with CONTENTS_QUERIES_CALLGRIND=1, which turns the instrumentation on for the queries only.

import Base
import Foundation
import Search

let arguments = CommandLine.arguments
let directory = arguments.count > 1 ? arguments[1] : "/work/data/contents"
let limit = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 20 : 20
let savedDirectory = arguments.count > 4 ? arguments[4] : nil
let words = ["libcurl", "python3", "systemd", "openssl", "gtk"]
let keystrokes = words.flatMap { word in (2...word.count).map { String(word.prefix($0)) } }

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
}

func microseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000
}

let schema = try CollectionSchema.decode(json: Data(contentsOf: URL(fileURLWithPath: directory + "/schema.json")))
var documents: [CollectionDocument] = []
documents.reserveCapacity(limit)
let loadStarted = Date()
var data = try Data(contentsOf: URL(fileURLWithPath: directory + "/contents.ndjson"))
data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
    let bytes = raw.bindMemory(to: UInt8.self)
    var start = 0
    while start < bytes.count, documents.count < limit {
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        if end > start { documents.append(try! CollectionDocument.decode(json: bytes[start..<end], schema: schema)) }
        start = end + 1
    }
}
/// glibc's `malloc_stats` (not in the Glibc module): each arena's bytes taken from the system and
/// in use, on standard error.
let mallocStats: (@convention(c) () -> Void)? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_stats").map {
    unsafeBitCast($0, to: (@convention(c) () -> Void).self)
}

/// VmRSS in MiB, after the heap's free memory went back (`HeapTrim`); with CONTENTS_QUERIES_HEAP=1
/// also glibc's `malloc_stats` (arena slack: system bytes against bytes in use).
func residentMiB() -> String {
    HeapTrim.release()
    if ProcessInfo.processInfo.environment["CONTENTS_QUERIES_HEAP"] == "1" {
        fflush(nil)  // stdout first: the stats go to stderr
        mallocStats?()
    }
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    let kib = Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
    return String(format: "%.1f MiB", kib / 1024)
}

var index = CollectionIndex(schema: schema, documents: documents)
documents = []
print("\(index.count) documents indexed in \(String(format: "%.1f", Date().timeIntervalSince(loadStarted))) s; resident \(residentMiB())")
// The file read and its lines: what remains is the index (and the runtime).
data = Data()
print("with the file's bytes let go: \(residentMiB())")

let filterParser = FilterParser(schema: schema)
let section = try filterParser.parse("section = libs")
let half = try filterParser.parse("depth <= 5")
let facets = ["section", "depth"]
let profiling = ProcessInfo.processInfo.environment["CONTENTS_QUERIES_CALLGRIND"] == "1"

func line(_ name: String, _ times: [Double]) -> String {
    String(format: "%@: p50 %.0f µs, p99 %.0f µs (%d queries)", name, percentile(times, 50), percentile(times, 99), times.count)
}

func runQueries(_ index: CollectionIndex) {
    if profiling { _ = system("callgrind_control -i on \(getpid()) > /dev/null") }

    var keystrokeTimes: [Double] = [], totals: [String: Int] = [:]
    for round in 0...rounds {
        for text in keystrokes {
            var result: CollectionSearchResult?
            let took = microseconds { result = index.search(CollectionQuery(text: text, filter: section, facets: facets)) }
            if round > 0 { keystrokeTimes.append(took) }
            totals[text] = result?.total
        }
    }
    var halfTimes: [Double] = [], halfTotal = 0
    for round in 0...(rounds * 5) {
        var result: CollectionSearchResult?
        let took = microseconds { result = index.search(CollectionQuery(filter: half, facets: facets)) }
        if round > 0 { halfTimes.append(took) }
        halfTotal = result?.total ?? 0
    }
    if profiling { _ = system("callgrind_control -i off \(getpid()) > /dev/null") }
    print(line("keystroke + filter section = libs + facets section,depth", keystrokeTimes))
    print("  matches: " + ["li", "lib", "libcurl", "py", "python3", "sy", "open", "gtk"].map { "\($0) \(totals[$0] ?? -1)" }.joined(separator: ", "))
    print(line("q empty + filter depth <= 5 (\(halfTotal) matches) + facets section,depth", halfTimes))
}

if let savedDirectory {
    print("— the index as built (bodies in memory)")
    runQueries(index)
    try? FileManager.default.removeItem(atPath: savedDirectory)
    try index.save(to: savedDirectory, epoch: "contents-queries")
    print("— saved to \(savedDirectory) (bodies read from the file): resident \(residentMiB())")
    runQueries(index)
    index = CollectionIndex(schema: schema)
    print("— restored (what a restart serves); resident with no index \(residentMiB())")
    index = try CollectionIndex.restore(from: savedDirectory).index
    print("resident with the restored index \(residentMiB())")
    runQueries(index)
} else {
    runQueries(index)
}
