extension RequestParser {
    /// Well-formed UTF-8 sequences (RFC 3629 §4) in a request target.
    ///
    /// curl and many scripts send non-ASCII query text as raw UTF-8 bytes rather than
    /// percent-encoded; nginx, Apache and Go's net/http accept them, so we do too, but only as
    /// well-formed UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
    enum UTF8Sequence {
        /// The length (2–4) of the well-formed sequence starting at `index`, or nil.
        static func length(in bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
            let lead = bytes[index]
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF  // the range of the second byte
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F  // no surrogates
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F  // nothing above U+10FFFF
            default: return nil
            }
            guard index + length <= bytes.count else { return nil }
            let second = bytes[index + 1]
            guard second >= low, second <= high else { return nil }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                return nil
            }
            return length
        }
    }
}
