/// A fast reader of a document's JSON in its plain form: the body the store keeps (written by
/// `JSONCoding.encoder`) and the usual `PUT` body. Foundation's `JSONDecoder` cost about 65,000
/// instructions a city (most of a replica's work on a change another replica wrote); this reads
/// one in a small share of that.
///
/// It answers only where it is sure to agree with `Document`'s `Decodable` (and the `PUT` body's):
/// on anything less plain (an escape in a string, a key it does not know or seen twice, a whole
/// number written with a fraction or exponent as an attribute, a control character, invalid
/// UTF-8, anything after the object) it returns nil, and the caller decodes with `JSONDecoder`,
/// which gives the answer and the errors it always gave.
public struct DocumentJSON: Sendable, Equatable {
    public var id: String?
    public var name: String
    public var alternateNames: [String]
    public var rank: Double
    public var attributes: [String: AttributeValue]

    /// The fields of `bytes`, or nil where `JSONDecoder` is to decide (see above).
    public static func read(_ bytes: some Collection<UInt8>) -> DocumentJSON? {
        let read = bytes.withContiguousStorageIfAvailable { buffer in Self.read(buffer: buffer) }
        return read ?? Array(bytes).withUnsafeBufferPointer { Self.read(buffer: $0) }
    }

    /// The document of a stored body (its `id` required, as `Document`'s `Decodable` requires it), or
    /// nil where `JSONDecoder` is to decide.
    public static func document(_ bytes: some Collection<UInt8>) -> Document? {
        guard let fields = read(bytes), let id = fields.id else { return nil }
        return Document(id: id, name: fields.name, alternateNames: fields.alternateNames, rank: fields.rank, attributes: fields.attributes)
    }

    private static func read(buffer: UnsafeBufferPointer<UInt8>) -> DocumentJSON? {
        var reader = PlainJSONReader(buffer)
        var id: String??, name: String?, alternateNames: [String]?, rank: Double?, attributes: [String: AttributeValue]?
        let complete = reader.readObject { reader, key in
            switch key {
            case "id" where id == nil:
                id = reader.peek() == UInt8(ascii: "n") ? (reader.readNull() ? .some(nil) : nil) : reader.readString().map { .some($0) }
                return id != nil
            case "name" where name == nil:
                name = reader.readString()
                return name != nil
            case "alternateNames" where alternateNames == nil:
                if reader.peek() == UInt8(ascii: "n") {
                    alternateNames = reader.readNull() ? [] : nil
                } else {
                    var names: [String] = []
                    let read = reader.readArray { reader in
                        guard let name = reader.readString() else { return false }
                        names.append(name)
                        return true
                    }
                    alternateNames = read ? names : nil
                }
                return alternateNames != nil
            case "rank" where rank == nil:
                if reader.peek() == UInt8(ascii: "n") {
                    rank = reader.readNull() ? 0 : nil
                } else {
                    rank = reader.readNumber()?.value
                }
                return rank != nil
            case "attributes" where attributes == nil:
                if reader.peek() == UInt8(ascii: "n") {
                    attributes = reader.readNull() ? [:] : nil
                    return attributes != nil
                }
                var values: [String: AttributeValue] = [:]
                let read = reader.readObject { reader, key in
                    guard values[key] == nil, let value = reader.readAttribute() else { return false }
                    values[key] = value
                    return true
                }
                attributes = read ? values : nil
                return attributes != nil
            default:
                return false
            }
        }
        // `id` given as null reads as absent, as `decodeIfPresent` has it; a null `name` is an error.
        guard complete, reader.isAtEnd(), let name else { return nil }
        return DocumentJSON(id: id ?? nil, name: name, alternateNames: alternateNames ?? [], rank: rank ?? 0, attributes: attributes ?? [:])
    }
}

/// The plain JSON `DocumentJSON` takes, strictly: every method answers nil or false for what it
/// does not take, and the reader is then left where it stopped.
private struct PlainJSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func peek() -> UInt8? {
        skipSpace()
        return position < bytes.count ? bytes[position] : nil
    }

    mutating func isAtEnd() -> Bool { peek() == nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    /// `{` key `:` value, ... `}`; `value` reads each value and says whether it took it.
    mutating func readObject(_ value: (inout PlainJSONReader, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = readString(), take(UInt8(ascii: ":")), value(&self, key) else { return false }
            if take(UInt8(ascii: "}")) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
        }
    }

    mutating func readArray(_ item: (inout PlainJSONReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        while true {
            guard item(&self) else { return false }
            if take(UInt8(ascii: "]")) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
        }
    }

    mutating func readNull() -> Bool { readWord("null") }

    private mutating func readWord(_ word: StaticString) -> Bool {
        skipSpace()
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
            UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[position..<position + count])
        else { return false }
        position += count
        return true
    }

    /// A string without escapes or control characters, in valid UTF-8.
    mutating func readString() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = position
        var isASCII = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                let text = UnsafeBufferPointer(rebasing: bytes[start..<position - 1])
                // ASCII (keys, ids and most names) needs no validation: the generic
                // `String(validating:)` cost about 1,000 instructions a string, seven a city.
                return isASCII ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            isASCII = isASCII && byte < 0x80
            position += 1
        }
        return nil
    }

    /// A number in JSON's grammar, its value and whether it is written as an integer (no fraction, no exponent).
    mutating func readNumber() -> (value: Double, isInteger: Bool, text: String)? {
        skipSpace()
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - first
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        // No leading zero before another digit, as JSON has it.
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return (value, isInteger, text)
    }

    /// An attribute as `AttributeValue`'s `Decodable` reads it: a boolean, an integer that fits
    /// 64 bits, another number (not a whole one: `JSONDecoder` may read `2.0` as an integer), a string.
    mutating func readAttribute() -> AttributeValue? {
        switch peek() {
        case UInt8(ascii: "t"): return readWord("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return readWord("false") ? .bool(false) : nil
        case UInt8(ascii: "\""): return readString().map(AttributeValue.string)
        default:
            guard let number = readNumber() else { return nil }
            if number.isInteger { return Int64(number.text).map(AttributeValue.int) }
            return number.value == number.value.rounded() ? nil : .double(number.value)
        }
    }
}
