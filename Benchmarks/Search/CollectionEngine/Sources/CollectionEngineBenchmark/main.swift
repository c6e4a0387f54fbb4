import Foundation
import Search

// Build time, resident bytes per document and search times of a CollectionIndex over generated
// documents shaped like the files of a Linux system: {"id": 17, "path": "usr/share/doc/libfoo3/
// changelog.Debian.gz", "package": "libfoo3", "section": "libs", "size": 1234}.

/// glibc's: returns freed heap pages to the system, so the resident size after freeing the input
/// documents shows the index alone.
@_silgen_name("malloc_trim") func mallocTrim(_ pad: Int) -> Int32

func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func threadCPUTime() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// CPU time of the whole process (every thread), user and system, in nanoseconds.
func processCPUTime() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1_000
    return user + UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1_000
}

func residentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}

/// A deterministic generator (LCG), so every run indexes the same documents.
struct Generator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let schema = CollectionSchema(
    fields: [
        FieldSchema(name: "path", type: .string, search: true),
        FieldSchema(name: "package", type: .string, search: true),
        FieldSchema(name: "section", type: .string),
        FieldSchema(name: "size", type: .number),
    ])

let syllables = ["lib", "gnu", "py", "x", "gtk", "qt", "net", "core", "utils", "font", "perl", "ruby", "data", "dev", "common", "tools", "doc", "kde", "gnome", "ssl"]
let sections = ["admin", "devel", "doc", "editors", "fonts", "games", "graphics", "interpreters", "kernel", "libs", "mail", "math", "misc", "net", "perl", "python", "science", "shells", "sound", "text", "utils", "video", "web", "x11"]
let directories = ["usr/share/doc/%p", "usr/lib/x86_64-linux-gnu", "usr/share/man/man1", "usr/bin", "usr/share/locale/de/LC_MESSAGES", "usr/share/%p", "etc/%p", "usr/lib/python3/dist-packages/%p"]
let files = ["changelog.Debian.gz", "copyright", "README.md", "%p.so.1", "%p.1.gz", "%p.mo", "__init__.py", "%p.conf", "NEWS.gz", "%p"]

var random = Generator()
let packages = (0..<40_000).map { i -> String in syllables[random.next(syllables.count)] + syllables[random.next(syllables.count)] + String(i % 997) }
let started = residentBytes()
var t0 = now()
var bodies: [[UInt8]] = []
bodies.reserveCapacity(count)
for i in 0..<count {
    let package = packages[random.next(packages.count)]
    let directory = directories[random.next(directories.count)].replacingOccurrences(of: "%p", with: package)
    let file = files[random.next(files.count)].replacingOccurrences(of: "%p", with: package)
    let section = sections[random.next(sections.count)]
    bodies.append(Array(#"{"id":\#(i),"path":"\#(directory)/\#(file)","package":"\#(package)","section":"\#(section)","size":\#(random.next(10_000_000))}"#.utf8))
}
let bodyBytes = bodies.reduce(0) { $0 + $1.count }
print("generated \(count) documents, \(bodyBytes / count) bytes of JSON each on average, in \(Double(now() - t0) / 1e9) s; load \(loadAverage())")

t0 = now()
var cpu = threadCPUTime()
var documents: [CollectionDocument] = []
documents.reserveCapacity(count)
let decoder = CollectionDocumentDecoder(schema: schema)
for body in bodies { documents.append(try decoder.decode(body)) }
print(String(format: "decode (one thread): %.2f s wall, %.2f s CPU, %.2f µs per document", Double(now() - t0) / 1e9, Double(threadCPUTime() - cpu) / 1e9, Double(now() - t0) / 1e3 / Double(count)))
bodies = []

t0 = now()
cpu = threadCPUTime()
let processCPU = processCPUTime()
let index = CollectionIndex(schema: schema, documents: documents)
print(String(format: "build: %.2f s wall, %.2f s CPU of the calling thread, %.2f s CPU of all threads; load %@", Double(now() - t0) / 1e9, Double(threadCPUTime() - cpu) / 1e9, Double(processCPUTime() - processCPU) / 1e9, loadAverage()))
documents = []
_ = mallocTrim(0)
let resident = residentBytes() - started
print("resident for the index: \(resident / 1_048_576) MiB, \(resident / count) bytes per document (\(bodyBytes / count) of them the stored JSON)")

struct Case {
    var name: String
    var query: (String) -> CollectionQuery
}
let keystrokes = ["c", "ch", "cha", "chan", "chang", "changelog", "u", "us", "usr", "gtk", "gtkd", "gtkdev", "pytho", "python3", "copyrigth", "man1 gz", "share doc lib", "locale de", "zzz"]
let libs = FilterExpression.compare(field: "section", .equal, .string("libs"))
let cases = [
    Case(name: "text") { CollectionQuery(text: $0) },
    Case(name: "text + filter section = libs") { CollectionQuery(text: $0, filter: libs) },
    Case(name: "text + filter + facets section, package") { CollectionQuery(text: $0, filter: libs, facets: ["section", "package"]) },
    Case(name: "text + facets section, package") { CollectionQuery(text: $0, facets: ["section", "package"]) },
    Case(name: "text + sort size desc") { CollectionQuery(text: $0, sort: [.field("size", descending: true)]) },
]
for item in cases {
    print("\n\(item.name) (thread CPU µs per query, best of 5; total)")
    var all: [Double] = []
    for text in keystrokes {
        var best = UInt64.max
        var total = 0
        for _ in 0..<5 {
            let start = threadCPUTime()
            let result = index.search(item.query(text))
            best = min(best, threadCPUTime() - start)
            total = result.total
        }
        all.append(Double(best) / 1e3)
        print(String(format: "  %-16@ %10.1f µs  %8d", "\"\(text)\"" as NSString, Double(best) / 1e3, total))
    }
    all.sort()
    print(String(format: "  median %.1f µs, mean %.1f µs", all[all.count / 2], all.reduce(0, +) / Double(all.count)))
}
let empty = [
    ("empty text, no filter", CollectionQuery()),
    ("empty text, filter section = libs", CollectionQuery(filter: libs)),
    ("empty text, filter size > 9,000,000, facets", CollectionQuery(filter: .compare(field: "size", .greater, .number(9_000_000)), facets: ["section", "package"])),
    ("empty text, facets section, package", CollectionQuery(facets: ["section", "package"])),
]
print("")
for (name, query) in empty {
    var best = UInt64.max
    for _ in 0..<5 {
        let start = threadCPUTime()
        _ = index.search(query)
        best = min(best, threadCPUTime() - start)
    }
    print(String(format: "%-45@ %10.1f µs", name as NSString, Double(best) / 1e3))
}

// Writes: one batch of 10,000 new documents, then single upserts.
var batch: [CollectionChange] = []
for i in 0..<10_000 {
    let body = Array(#"{"id":"new-\#(i)","path":"opt/new/file\#(i).txt","package":"newpkg","section":"misc","size":\#(i)}"#.utf8)
    batch.append(.upsert(try decoder.decode(body)))
}
t0 = now()
index.apply(batch)
print(String(format: "\napply 10,000 new documents: %.1f ms", Double(now() - t0) / 1e6))
t0 = now()
for i in 0..<100 {
    let body = Array(#"{"id":\#(i),"path":"opt/changed/\#(i)","package":"changed","section":"misc","size":1}"#.utf8)
    index.apply([.upsert(try decoder.decode(body))])
}
print(String(format: "apply 100 single upserts (replacing): %.2f ms each", Double(now() - t0) / 1e6 / 100))
print("documents now: \(index.count)")
