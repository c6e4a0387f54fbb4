/// Appends JSON values to a byte buffer.
///
/// For the search hot path only: Foundation's `JSONEncoder` spent more CPU on a
/// page of ten hits than the search itself (perf on an uncached `/search` load).
/// Output matches `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes`
/// as long as callers write keys in sorted order.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Bytes that already are JSON.
    mutating func raw(_ json: [UInt8]) {
        bytes.append(contentsOf: json)
    }

    /// A string literal, escaped as RFC 8259 requires (quote, backslash, control characters).
    mutating func string(_ value: String) {
        // Most strings need no escape: one copy of their bytes instead of one append per byte.
        let copied = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if copied != true { escaped(value) }
    }

    private mutating func escaped(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20:
                raw("\\u00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An object key followed by its colon.
    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A key known to need no escape (a literal of the caller's), followed by its colon.
    mutating func plainKey(_ name: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func number(_ value: Int64) {
        // Digits written in place: no String per number.
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    mutating func number(_ value: Int) {
        number(Int64(value))
    }

    /// The shortest text that reads back as `value`, like `JSONEncoder` ("1" for 1.0);
    /// `null` for NaN and infinities, which JSON cannot carry.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
