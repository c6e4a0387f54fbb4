// Records per second of CSV readers on the same generated file, one reader per process so that
// each one's peak resident memory is its own.
//
// usage: CSVBenchmarks generate PATH LINES
//        CSVBenchmarks READER PATH      READER: ours, ours+builder, csv.swift, swiftcsv
import CSV
import Foundation
import Search
import SwiftCSV

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: CSVBenchmarks generate PATH LINES | CSVBenchmarks ours|ours+builder|csv.swift|swiftcsv PATH")
    exit(2)
}
let mode = arguments[1]
let path = arguments[2]

if mode == "generate" {
    generate(path: path, lines: Int(arguments.count > 3 ? arguments[3] : "") ?? 1_000_000)
    exit(0)
}

let chunkSize = 64 * 1024
let clock = ContinuousClock()
let start = clock.now
let records: Int
switch mode {
case "ours": records = readOurs(path: path, buildDocuments: false)
case "ours+builder": records = readOurs(path: path, buildDocuments: true)
case "csv.swift": records = readCSVSwift(path: path)
case "swiftcsv": records = readSwiftCSV(path: path)
default:
    print("unknown reader \(mode)")
    exit(2)
}
let elapsed = clock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(String(format: "%@\t%d records\t%.3f s\t%.0f records/s\tpeak RSS %d MiB", mode, records, seconds, Double(records) / seconds, peakResidentMiB()))

/// A products CSV: a header, then `lines - 1` records; every 10th title quoted with a comma and
/// doubled quotes.
func generate(path: String, lines: Int) {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
    let words = ["red", "blue", "steel", "phone", "lamp", "desk", "chair", "cable", "pro", "mini", "max", "eco"]
    var output = "sku,title,tags,price,inStock,lat,lon\n"
    guard FileManager.default.createFile(atPath: path, contents: nil) else { fatalError("cannot write \(path)") }
    let handle = FileHandle(forWritingAtPath: path)!
    for line in 1..<lines {
        let title = (0..<3).map { _ in words[Int(next() % UInt64(words.count))] }.joined(separator: " ")
        let quotedTitle = line % 10 == 0 ? "\"\(title), \"\"special\"\" edition\"" : title
        let tags = (0..<Int(next() % 4)).map { _ in words[Int(next() % UInt64(words.count))] }.joined(separator: "|")
        let price = Double(next() % 100_000) / 100
        let lat = Double(next() % 180_000) / 1000 - 90
        let lon = Double(next() % 360_000) / 1000 - 180
        output += "SKU-\(line),\(quotedTitle),\(tags),\(price),\(next() % 2 == 0),\(lat),\(lon)\n"
        if output.utf8.count > 1 << 20 {
            handle.write(Data(output.utf8))
            output = ""
        }
    }
    handle.write(Data(output.utf8))
    try? handle.close()
}

/// Our reader, fed 64 KiB chunks as a socket would give them; optionally the documents' JSON too.
func readOurs(path: String, buildDocuments: Bool) -> Int {
    guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
    defer { fclose(file) }
    var reader = CSVRecordReader()
    var builder: CSVDocumentBuilder?
    let schema = CollectionSchema(
        idField: "sku",
        fields: [
            FieldSchema(name: "title", type: .string, search: true), FieldSchema(name: "tags", type: .stringArray),
            FieldSchema(name: "price", type: .number), FieldSchema(name: "inStock", type: .boolean),
            FieldSchema(name: "store", type: .geo, from: GeoSource(latitude: "lat", longitude: "lon")),
        ])
    var count = 0
    var bytes = 0
    var buffer = [UInt8](repeating: 0, count: chunkSize)
    func consume(_ results: [Result<CSVRecord, ImportLineError>]) {
        for result in results {
            guard case .success(let record) = result else { fatalError("\(result)") }
            count += 1
            guard buildDocuments else { continue }
            if let builder {
                bytes += (try? builder.document(from: record).count) ?? 0
            } else {
                builder = try? CSVDocumentBuilder(header: record, schema: schema)
            }
        }
    }
    while true {
        let read = fread(&buffer, 1, chunkSize, file)
        if read == 0 { break }
        consume(reader.feed(buffer[0..<read]))
    }
    consume(reader.finish())
    if buildDocuments { print("document JSON: \(bytes) bytes") }
    return count
}

/// yaslab/CSV.swift: pull-based, it reads the `InputStream` itself.
func readCSVSwift(path: String) -> Int {
    guard let stream = InputStream(fileAtPath: path), let reader = try? CSVReader(stream: stream, hasHeaderRow: false) else {
        fatalError("cannot open \(path)")
    }
    var count = 0
    while reader.next() != nil { count += 1 }
    // On Linux, Foundation's file InputStream reports bytes available at its end, so the reader
    // tries one more byte and records `cannotReadFile` after the last record: noted, not fatal
    // (the record count is checked against the other readers').
    if let error = reader.error { print("csv.swift: reader.error after \(count) records: \(error)") }
    return count
}

/// swiftcsv/SwiftCSV: a whole `String`; rows enumerated without building the table.
func readSwiftCSV(path: String) -> Int {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let csv = try? EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false, rowLimit: 1)
    else { fatalError("cannot read \(path)") }
    nonisolated(unsafe) var count = 0
    do {
        try csv.enumerateAsArray(startAt: 0, rowLimit: nil) { _ in count += 1 }
    } catch {
        fatalError("\(error)")
    }
    return count
}

/// VmHWM of this process, in MiB.
func peakResidentMiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return -1 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
}
