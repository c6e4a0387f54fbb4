// libFuzzer entry point for the streaming CSV record reader and the CSV document builder, built
// by `scripts/fuzz csv` (not by SwiftPM).
//
// An input's first two bytes give two cut points; the rest is the import, read whole and read
// in the three chunks the cuts make, with small limits so that they are met. Its first record
// is the header of a products collection; every later record is turned into a document. The
// fuzzer stops with a crash when the two readings differ, when record lines do not increase,
// when a record breaks a limit, or when a document is not a well-formed JSON object with one
// member per non-empty cell; and when `CSVDocumentReader` (the same, end to end) reads the chunks
// otherwise than the whole.

import Foundation
@testable import Search

let maxRecordBytes = 48
let maxCells = 12
let schema = CollectionSchema(
    idField: "sku",
    fields: [
        FieldSchema(name: "title", type: .string, search: true), FieldSchema(name: "tags", type: .stringArray),
        FieldSchema(name: "price", type: .number), FieldSchema(name: "inStock", type: .boolean),
        FieldSchema(name: "at", type: .geo),
        FieldSchema(name: "store", type: .geo, from: GeoSource(latitude: "lat", longitude: "lon")),
    ])

@_cdecl("LLVMFuzzerTestOneInput")
public func csvFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    let cuts = [Int(data[0]) % (input.count + 1), Int(data[1]) % (input.count + 1)].sorted()

    var whole = CSVRecordReader(maxRecordBytes: maxRecordBytes, maxCells: maxCells)
    let expected = whole.feed(input) + whole.finish()
    var chunked = CSVRecordReader(maxRecordBytes: maxRecordBytes, maxCells: maxCells)
    let got = chunked.feed(input[..<cuts[0]]) + chunked.feed(input[cuts[0]..<cuts[1]]) + chunked.feed(input[cuts[1]...]) + chunked.finish()
    if got != expected { fatalError("chunks at \(cuts) read \(got), whole \(expected)") }

    let lines = input.count(where: { $0 == 0x0A }) + 1
    var previous = 0
    var builder: CSVDocumentBuilder?
    var sawHeader = false
    for result in expected {
        switch result {
        case .failure(let error):
            if error.line <= previous || error.line > lines { fatalError("error line \(error.line) after \(previous)") }
            previous = error.line
        case .success(let record):
            if record.line <= previous || record.line > lines { fatalError("record line \(record.line) after \(previous)") }
            previous = record.line
            if record.count > maxCells || record.count == 0 { fatalError("a record of \(record.count) cells") }
            if (0..<record.count).reduce(0, { $0 + record[$1].count }) > maxRecordBytes { fatalError("a record over the limit") }
            if !sawHeader {
                sawHeader = true
                builder = try? CSVDocumentBuilder(header: record, schema: schema)
            } else if let builder, let document = try? builder.document(from: record) {
                checkDocument(document, record: record)
            }
        }
    }
    checkDocumentReader(input, cuts: cuts)
    return 0
}

/// `CSVDocumentReader` gives the same documents, or throws the same header error, in chunks as whole.
func checkDocumentReader(_ input: [UInt8], cuts: [Int]) {
    func read(_ pieces: [ArraySlice<UInt8>]) -> Result<[Result<CSVDocument, ImportLineError>], ImportLineError> {
        var reader = CSVDocumentReader(schema: schema, maxRecordBytes: maxRecordBytes, maxCells: maxCells)
        do throws(ImportLineError) {
            var documents: [Result<CSVDocument, ImportLineError>] = []
            for piece in pieces { documents += try reader.feed(piece) }
            return .success(documents + (try reader.finish()))
        } catch {
            return .failure(error)
        }
    }
    let whole = read([input[...]])
    let chunked = read([input[..<cuts[0]], input[cuts[0]..<cuts[1]], input[cuts[1]...]])
    if whole != chunked { fatalError("CSVDocumentReader: chunks at \(cuts) read \(chunked), whole \(whole)") }
    if case .success(let documents) = whole {
        for case .success(let document) in documents {
            guard (try? JSONSerialization.jsonObject(with: Data(document.json))) is [String: Any] else {
                fatalError("not a JSON object: \(String(decoding: document.json, as: UTF8.self).debugDescription)")
            }
        }
    }
}

func checkDocument(_ document: [UInt8], record: CSVRecord) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(document)) as? [String: Any] else {
        fatalError("not a JSON object: \(String(decoding: document, as: UTF8.self).debugDescription) from \(record.strings)")
    }
    let nonEmpty = (0..<record.count).count { !record[$0].isEmpty }
    if object.count != nonEmpty {
        fatalError("\(object.count) members for \(nonEmpty) cells: \(String(decoding: document, as: UTF8.self).debugDescription)")
    }
}
