#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension RequestParser {
    /// Byte classes of RFC 9110 / RFC 9112 / RFC 3986, as cheap switch-based predicates.
    enum ASCII {
        static let cr = UInt8(ascii: "\r")
        static let lf = UInt8(ascii: "\n")
        static let space = UInt8(ascii: " ")
        static let tab = UInt8(ascii: "\t")
        static let colon = UInt8(ascii: ":")
        static let comma = UInt8(ascii: ",")
        static let semicolon = UInt8(ascii: ";")
        static let equals = UInt8(ascii: "=")
        static let quote = UInt8(ascii: "\"")
        static let backslash = UInt8(ascii: "\\")
        static let slash = UInt8(ascii: "/")
        static let question = UInt8(ascii: "?")
        static let percent = UInt8(ascii: "%")
        static let star = UInt8(ascii: "*")

        /// SP or HTAB: optional whitespace (OWS/BWS) around values and separators.
        @inline(__always)
        static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

        @inline(__always)
        static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

        /// The value of a hex digit, or nil.
        @inline(__always)
        static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte &- 0x30
            case 0x41...0x46: byte &- 0x41 &+ 10
            case 0x61...0x66: byte &- 0x61 &+ 10
            default: nil
            }
        }

        /// tchar (RFC 9110 §5.6.2): the characters of methods, field names and other tokens.
        /// A bit per ASCII byte (``tokenCharMaskLow`` for 0–63, ``tokenCharMaskHigh`` for 64–127),
        /// the same set as ``isTokenCharBySwitch(_:)``, which the tests compare it with.
        @inline(__always)
        static func isTokenChar(_ byte: UInt8) -> Bool {
            let mask = byte < 64 ? tokenCharMaskLow : tokenCharMaskHigh
            return byte < 128 && (mask >> UInt64(byte & 63)) & 1 == 1
        }

        static let tokenCharMaskLow: UInt64 = 0x03FF_6CFA_0000_0000
        static let tokenCharMaskHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

        /// tchar spelled out, to check the masks.
        static func isTokenCharBySwitch(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true  // DIGIT, ALPHA
            case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true  // !#$%&'*+-.^_`|~
            default: false
            }
        }

        /// field-vchar or SP/HTAB (RFC 9110 §5.5): anything but controls (CR, LF and NUL among them) and DEL.
        /// obs-text (0x80–0xFF) is accepted as the grammar allows.
        @inline(__always)
        static func isFieldValueChar(_ byte: UInt8) -> Bool {
            byte == tab || (byte >= 0x20 && byte != 0x7F)
        }

        /// qdtext or the second byte of a quoted-pair (RFC 9110 §5.6.4): HTAB, SP, VCHAR, obs-text.
        @inline(__always)
        static func isQuotedTextChar(_ byte: UInt8) -> Bool { isFieldValueChar(byte) }

        /// unreserved / sub-delims (RFC 3986 §2.2–2.3).
        @inline(__always)
        static func isUnreservedOrSubDelim(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
            case 0x2D, 0x2E, 0x5F, 0x7E: true  // - . _ ~
            case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: true  // ! $ & ' ( ) * + , ; =
            default: false
            }
        }

        /// pchar without pct-encoded (RFC 3986 §3.3), plus "/" which separates segments.
        @inline(__always)
        static func isPathChar(_ byte: UInt8) -> Bool {
            isUnreservedOrSubDelim(byte) || byte == colon || byte == 0x40 || byte == slash
        }

        /// Query bytes: RFC 3986 allows pchar / "/" / "?"; we also accept the other visible ASCII
        /// characters browsers leave unencoded in queries (`"<>\^`{|}`), but never "#", space or
        /// controls.
        @inline(__always)
        static func isQueryChar(_ byte: UInt8) -> Bool {
            byte > 0x20 && byte < 0x7F && byte != 0x23
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Compares with a lowercase ASCII literal, ignoring the case of ASCII letters in `self`.
    /// Only meaningful when `self` holds token characters (no byte maps onto a letter or "-").
    @inline(__always)
    func equalsLowercase(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        let other = literal.utf8Start
        for index in 0..<count where self[index] | 0x20 != other[index] {
            return false
        }
        return true
    }

    /// Whether `index` starts a pct-encoded triplet: "%" HEXDIG HEXDIG (RFC 3986 §2.1).
    @inline(__always)
    func isPercentEncoded(at index: Int) -> Bool {
        index + 2 < count && self[index] == RequestParser.ASCII.percent && RequestParser.ASCII.hexValue(self[index + 1]) != nil
            && RequestParser.ASCII.hexValue(self[index + 2]) != nil
    }

    /// The bytes with leading and trailing SP/HTAB removed.
    @inline(__always)
    func trimmingWhitespace() -> UnsafeRawBufferPointer {
        var start = 0
        var end = count
        while start < end, RequestParser.ASCII.isWhitespace(self[start]) { start += 1 }
        while end > start, RequestParser.ASCII.isWhitespace(self[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: self[start..<end])
    }

    /// Splits a comma-separated list (RFC 9110 §5.6.1) into trimmed elements, skipping empty ones.
    func forEachListElement(_ body: (UnsafeRawBufferPointer) throws(RequestParseError) -> Void) throws(RequestParseError) {
        var start = 0
        for index in 0...count where index == count || self[index] == RequestParser.ASCII.comma {
            let element = UnsafeRawBufferPointer(rebasing: self[start..<index]).trimmingWhitespace()
            if !element.isEmpty { try body(element) }
            start = index + 1
        }
    }

    var asString: String { String(decoding: self, as: UTF8.self) }
}

extension UnsafeRawBufferPointer {
    /// Byte-for-byte comparison with an ASCII literal.
    @inline(__always)
    func equals(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount, let base = baseAddress else {
            return count == 0 && literal.utf8CodeUnitCount == 0
        }
        return memcmp(base, literal.utf8Start, count) == 0
    }
}
