/// A small JSON reader over bytes for large data files, where Foundation's decoders are slow and
/// memory-hungry (the 80 MB cities500.json). Produces plain values; reports the line of an error.
struct JSONScanner {
    enum Value {
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
        case array([Value])
        case object([(key: String, value: Value)])
    }

    struct Failure: Error {
        /// Byte offset of the problem.
        var position: Int
        var reason: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    /// Nesting depth limit (this format nests 3 deep).
    private let maxDepth = 64

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The line (from 1) of a byte offset, for errors.
    func line(of offset: Int) -> Int { 1 + bytes[0..<min(offset, bytes.count)].count(where: { $0 == 0x0A }) }

    func fail(_ reason: String) -> Failure { Failure(position: position, reason: reason) }

    mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// Reads the next byte after space, which must be `byte`.
    mutating func expect(_ byte: UInt8) throws(Failure) {
        skipSpace()
        guard position < bytes.count, bytes[position] == byte else {
            throw fail("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        position += 1
    }

    /// Calls `body` with each key of an object; `body` must read the value.
    mutating func readObject(_ body: (inout JSONScanner, String) throws(Failure) -> Void) throws(Failure) {
        try readObjectKeys { scanner, key throws(Failure) in try body(&scanner, key.text) }
    }

    /// A key as ``readObjectKeys(_:)`` gives it: its bytes in the scanned buffer when it has no
    /// escape (the usual case: no string is made for it), else its decoded text.
    enum Key {
        case bytes(UnsafeBufferPointer<UInt8>)
        case text(String)

        var text: String {
            switch self {
            case .bytes(let bytes): String(decoding: bytes, as: UTF8.self)
            case .text(let text): text
            }
        }
    }

    /// ``readObject(_:)`` for a caller that matches keys by their bytes.
    mutating func readObjectKeys(_ body: (inout JSONScanner, Key) throws(Failure) -> Void) throws(Failure) {
        try expect(UInt8(ascii: "{"))
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipSpace()
            let key = try readKey()
            try expect(UInt8(ascii: ":"))
            try body(&self, key)
            skipSpace()
            guard position < bytes.count else { throw fail("unterminated object") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "}") { return }
            guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or '}'") }
        }
    }

    /// A key's bytes when it has no escape, else its text (read as ``readString()`` reads it).
    private mutating func readKey() throws(Failure) -> Key {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        let end = quoteOrBackslash(from: position + 1)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return .text(try readString()) }
        let key = UnsafeBufferPointer(rebasing: bytes[(position + 1)..<end])
        position = end + 1
        return .bytes(key)
    }

    mutating func readValue(depth: Int = 0) throws(Failure) -> Value {
        guard depth < maxDepth else { throw fail("nested too deep") }
        skipSpace()
        guard position < bytes.count else { throw fail("unexpected end of data") }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "{"):
            var fields: [(key: String, value: Value)] = []
            try readObject { scanner, key throws(Failure) in fields.append((key, try scanner.readValue(depth: depth + 1))) }
            return .object(fields)
        case UInt8(ascii: "["):
            position += 1
            var items: [Value] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                items.append(try readValue(depth: depth + 1))
                skipSpace()
                guard position < bytes.count else { throw fail("unterminated array") }
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "]") { return .array(items) }
                guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or ']'") }
            }
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default:
            return .number(try readNumber())
        }
    }

    /// Passes over the byte ``peek()`` returned.
    mutating func skip() {
        position += 1
    }

    /// Whether only space is left.
    mutating func isAtEnd() -> Bool {
        skipSpace()
        return position >= bytes.count
    }

    /// The next byte after space, not consumed.
    mutating func peek() -> UInt8? {
        skipSpace()
        return position < bytes.count ? bytes[position] : nil
    }

    /// Checks and passes over the next value without building it (undeclared fields of a
    /// collection document are stored, not read).
    mutating func skipValue(depth: Int = 0) throws(Failure) {
        guard depth < maxDepth else { throw fail("nested too deep") }
        skipSpace()
        guard position < bytes.count else { throw fail("unexpected end of data") }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"):
            try readObject { scanner, _ throws(Failure) in try scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            position += 1
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return
            }
            while true {
                try skipValue(depth: depth + 1)
                skipSpace()
                guard position < bytes.count else { throw fail("unterminated array") }
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "]") { return }
                guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or ']'") }
            }
        case UInt8(ascii: "t"): _ = try literal("true", .null)
        case UInt8(ascii: "f"): _ = try literal("false", .null)
        case UInt8(ascii: "n"): _ = try literal("null", .null)
        default: _ = try readNumber()
        }
    }

    /// Passes over a string, escapes checked but not decoded (raw control characters pass, as in
    /// `readString`: a document's undeclared fields are judged like its declared ones).
    private mutating func skipString() throws(Failure) {
        position += 1
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\") {
                guard position < bytes.count else { break }
                if bytes[position] == UInt8(ascii: "u") {
                    position += 1
                    _ = try readHex4()
                } else {
                    position += 1
                }
            }
        }
        throw fail("unterminated string")
    }

    /// A number and the bytes it was written with (an integer id keeps its spelling).
    mutating func readNumberText() throws(Failure) -> (value: Double, text: Range<Int>) {
        skipSpace()
        let start = position
        let value = try readNumber()
        return (value, start..<position)
    }

    /// The bytes of `range`.
    func bytes(in range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    private mutating func literal(_ word: StaticString, _ value: Value) throws(Failure) -> Value {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
            UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[position..<position + count])
        else { throw fail("invalid literal") }
        position += count
        return value
    }

    private mutating func readNumber() throws(Failure) -> Double {
        let start = position
        scan: while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                position += 1
            default: break scan
            }
        }
        if let integer = Self.smallInteger(bytes[start..<position]) { return integer }
        guard position > start, let number = Double(String(decoding: bytes[start..<position], as: UTF8.self)) else {
            throw fail("invalid number")
        }
        return number
    }

    /// Most digits an integer read without `Double(String)` may have: below 2^53, so the value is
    /// exact, the same `Double` the general parse gives.
    private static let maxExactDigits = 15

    /// `text` as a number when it is a plain integer (an optional `-`, then 1 to 15 digits), read
    /// digit by digit: an import reads one or two a document (ids, counts), and the general
    /// parse made a `String` of each. nil for anything else (`Double(String)` then decides, as
    /// for `+1`, `1.5`, `1e3`, or a leading `-` alone).
    private static func smallInteger(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        var digits = text[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= maxExactDigits else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return negative ? -Double(value) : Double(value)
    }

    mutating func readString() throws(Failure) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        position += 1
        let start = position
        // Fast path: no escapes.
        position = quoteOrBackslash(from: position)
        guard position < bytes.count else { throw fail("unterminated string") }
        if bytes[position] == UInt8(ascii: "\"") {
            position += 1
            return String(decoding: bytes[start..<position - 1], as: UTF8.self)
        }
        var utf8 = Array(bytes[start..<position])
        while true {
            guard position < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { break }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                continue
            }
            guard position < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "u"):
                var scalar = try readHex4()
                if (0xD800..<0xDC00).contains(scalar), position + 6 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                {
                    position += 2
                    let low = try readHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("invalid surrogate pair") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                utf8.append(contentsOf: String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8)
            default: utf8.append(escape)  // \" \\ \/
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The offset of the first `"` or `\` at or after `start`, `bytes.count` if none: eight bytes
    /// a step (an import reads every string of every document through here, issue 25).
    private func quoteOrBackslash(from start: Int) -> Int {
        var position = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while position + 8 <= bytes.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                // A byte of `quotes` (`backslashes`) is zero where `word` holds a quote (backslash). The
                // lowest flag is exact: a borrow can flag a byte only above a zero one.
                let quotes = word ^ 0x2222_2222_2222_2222, backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
                let found = ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & highs
                if found != 0 { return position + found.trailingZeroBitCount / 8 }
                position += 8
            }
        }
        while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") { position += 1 }
        return position
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
        else { throw fail("invalid \\u escape") }
        position += 4
        return value
    }
}
