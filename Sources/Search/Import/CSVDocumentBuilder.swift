/// Turns the records of a CSV import into the JSON bodies of documents, by the collection's
/// schema and the import's header (its first record).
///
/// A cell becomes a member named by its column, converted by the column's field type: `number`
/// a finite decimal; `boolean` from `true`/`false` (any case) or `1`/`0`; `string[]` split on
/// `|`, each element trimmed, empty ones dropped; a `geo` field without `from` from `lat,lng`
/// (`{"lat": …, "lng": …}`); the columns a geo field is built `from` as numbers. The id column
/// stays a string (`"007"` is not `7`); undeclared columns are kept as strings. An empty cell
/// is a missing member. The output is well-formed JSON (strings escaped; a cell that is not
/// UTF-8 is an error, not repaired), ready for the collection's document decoder.
public struct CSVDocumentBuilder: Sendable {
    /// How a column's cells become JSON values.
    enum Conversion: Sendable, Hashable {
        case string
        case strings
        case number
        case boolean
        case geoPoint
    }

    struct Column: Sendable, Hashable {
        var name: String
        /// `"name":`, escaped once for every record.
        var key: [UInt8]
        var conversion: Conversion
        /// The field type named in errors (`number`, `coordinate`...).
        var typeName: String
    }

    /// Longest cell quoted in an error message, in characters.
    static let maxQuotedCell = 40

    let columns: [Column]

    /// The column names, as the header gives them (a byte order mark dropped).
    public var columnNames: [String] { columns.map(\.name) }

    /// A builder for the records under `header`, the import's first record.
    public init(header: CSVRecord, schema: CollectionSchema) throws(ImportLineError) {
        try self.init(header: header.strings, line: header.line, schema: schema)
    }

    public init(header: [String], line: Int = 1, schema: CollectionSchema) throws(ImportLineError) {
        var names = header
        if let first = names.first, first.hasPrefix("\u{FEFF}") { names[0] = String(first.dropFirst()) }
        var coordinates: [String: String] = [:]
        for field in schema.fields where field.type == .geo {
            guard let from = field.from else { continue }
            coordinates[from.latitude] = field.name
            coordinates[from.longitude] = field.name
        }
        var seen: [String: Int] = [:]
        var columns: [Column] = []
        for (index, name) in names.enumerated() {
            guard !name.isEmpty else { throw ImportLineError(line: line, "column \(index + 1) of the header has no name") }
            if let earlier = seen[name] {
                throw ImportLineError(line: line, "the header names '\(name.prefix(80))' twice (columns \(earlier + 1) and \(index + 1))")
            }
            seen[name] = index
            let field = schema.field(named: name)
            let conversion: Conversion
            let typeName: String
            if name == schema.idField {
                (conversion, typeName) = (.string, "id")
            } else if let field {
                switch field.type {
                case .string: (conversion, typeName) = (.string, "string")
                case .stringArray: (conversion, typeName) = (.strings, "string[]")
                case .number: (conversion, typeName) = (.number, "number")
                case .boolean: (conversion, typeName) = (.boolean, "boolean")
                case .geo:
                    if let from = field.from {
                        throw ImportLineError(
                            line: line, "'\(name)' is a geo field built from '\(from.latitude)' and '\(from.longitude)': give those columns instead")
                    }
                    (conversion, typeName) = (.geoPoint, "geo (lat,lng)")
                }
            } else if let geoField = coordinates[name] {
                (conversion, typeName) = (.number, "coordinate of '\(geoField)'")
            } else {
                (conversion, typeName) = (.string, "string")
            }
            var key: [UInt8] = []
            JSONOutput.appendString(name, to: &key)
            key.append(UInt8(ascii: ":"))
            columns.append(Column(name: name, key: key, conversion: conversion, typeName: typeName))
        }
        guard seen[schema.idField] != nil else {
            throw ImportLineError(line: line, "the header has no '\(schema.idField)' column, the collection's id field")
        }
        self.columns = columns
    }

    /// The JSON body of the document `record` writes.
    public func document(from record: CSVRecord) throws(ImportLineError) -> [UInt8] {
        guard record.count == columns.count else {
            throw ImportLineError(line: record.line, "the record has \(record.count) cells; the header has \(columns.count)")
        }
        var output: [UInt8] = [UInt8(ascii: "{")]
        output.reserveCapacity(64 + columns.count * 16)
        var first = true
        for (index, column) in columns.enumerated() {
            let cell = record[index]
            guard !cell.isEmpty else { continue }
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output.append(contentsOf: column.key)
            do throws(Failure) {
                try cell.withUnsafeBufferPointer { (buffer) throws(Failure) in try Self.append(buffer, as: column.conversion, to: &output) }
            } catch {
                let shown = Self.quoted(cell)
                switch error {
                case .notUTF8:
                    throw ImportLineError(line: record.line, "column '\(column.name)': the cell is not UTF-8 text")
                case .invalid(let expected):
                    throw ImportLineError(line: record.line, "column '\(column.name)': \(shown) is not \(expected)")
                }
            }
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    enum Failure: Error {
        case notUTF8
        /// What the cell should have been: "a number", "true, false, 1 or 0"...
        case invalid(expected: String)
    }

    static func append(_ cell: UnsafeBufferPointer<UInt8>, as conversion: Conversion, to output: inout [UInt8]) throws(Failure) {
        switch conversion {
        case .string:
            guard isUTF8(cell) else { throw .notUTF8 }
            JSONOutput.appendString(utf8: cell, to: &output)
        case .strings:
            guard isUTF8(cell) else { throw .notUTF8 }
            output.append(UInt8(ascii: "["))
            var count = 0
            for element in cell.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: true) {
                let trimmed = trimmed(element)
                guard !trimmed.isEmpty else { continue }
                if count > 0 { output.append(UInt8(ascii: ",")) }
                count += 1
                JSONOutput.appendString(utf8: UnsafeBufferPointer(rebasing: trimmed), to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .number:
            try appendNumber(trimmed(cell[...]), limit: nil, to: &output)
        case .boolean:
            guard let flag = boolean(trimmed(cell[...])) else { throw .invalid(expected: "a boolean (true, false, 1 or 0)") }
            if flag {
                JSONOutput.appendLiteral("true", to: &output)
            } else {
                JSONOutput.appendLiteral("false", to: &output)
            }
        case .geoPoint:
            let parts = cell.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            let point = "a point lat,lng (latitude within ±90, longitude within ±180)"
            guard parts.count == 2 else { throw .invalid(expected: point) }
            do throws(Failure) {
                JSONOutput.appendLiteral("{\"lat\":", to: &output)
                try appendNumber(trimmed(parts[0]), limit: 90, to: &output)
                JSONOutput.appendLiteral(",\"lng\":", to: &output)
                try appendNumber(trimmed(parts[1]), limit: 180, to: &output)
                output.append(UInt8(ascii: "}"))
            } catch {
                throw .invalid(expected: point)
            }
        }
    }

    /// A decimal number as a JSON number: as written when that is JSON already (`1.50` stays
    /// `1.50`), else as Swift writes the value (`.5` → `0.5`, `007` → `7.0`).
    private static func appendNumber(_ text: Slice<UnsafeBufferPointer<UInt8>>, limit: Double?, to output: inout [UInt8]) throws(Failure) {
        let expected = "a number"
        guard text.count <= DecimalNumber.maxLength, DecimalNumber.isDecimal(text) else { throw .invalid(expected: expected) }
        let isJSON = isJSONNumber(text)
        // Without an exponent, at most `maxLength` digits are finite: no need to convert them.
        if isJSON, limit == nil, !text.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            output.append(contentsOf: text)
            return
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { throw .invalid(expected: expected) }
        if let limit, abs(value) > limit { throw .invalid(expected: expected) }
        if isJSON {
            output.append(contentsOf: text)
        } else {
            output.append(contentsOf: value.description.utf8)
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, given a decimal number.
    static func isJSONNumber(_ text: some Collection<UInt8>) -> Bool {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var index = text.startIndex
        if index < text.endIndex, text[index] == UInt8(ascii: "-") { text.formIndex(after: &index) }
        guard index < text.endIndex, isDigit(text[index]) else { return false }
        let first = text[index]
        var digits = 0
        while index < text.endIndex, isDigit(text[index]) {
            digits += 1
            text.formIndex(after: &index)
        }
        if digits > 1, first == UInt8(ascii: "0") { return false }
        if index < text.endIndex, text[index] == UInt8(ascii: ".") {
            text.formIndex(after: &index)
            guard index < text.endIndex, isDigit(text[index]) else { return false }
        }
        return true
    }

    /// `true`/`false` in any case, `1`/`0`.
    private static func boolean(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool? {
        func spells(_ word: StaticString) -> Bool {
            text.count == word.utf8CodeUnitCount
                && zip(text, UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)).allSatisfy { $0 | 0x20 == $1 }
        }
        if text.count == 1 {
            switch text.first {
            case UInt8(ascii: "1"): return true
            case UInt8(ascii: "0"): return false
            default: return nil
            }
        }
        if spells("true") { return true }
        if spells("false") { return false }
        return nil
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return bytes[start..<end]
    }

    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        return String(validating: bytes, as: UTF8.self) != nil
    }

    /// A cell as an error message shows it: quoted, cut at `maxQuotedCell` characters.
    static func quoted(_ cell: ArraySlice<UInt8>) -> String {
        let text = String(decoding: cell, as: UTF8.self)
        return text.count <= maxQuotedCell ? "'\(text)'" : "'\(text.prefix(maxQuotedCell))…'"
    }
}
