extension RequestParser {
    /// One validated `field-name ":" OWS field-value OWS` line (RFC 9112 §5), pointing into the
    /// line's bytes; only valid while those bytes are.
    struct FieldLine {
        let name: UnsafeRawBufferPointer
        let value: UnsafeRawBufferPointer
        /// No obs-text in the value, so it can become a String without UTF-8 repair.
        let valueIsASCII: Bool

        /// Validates a header or trailer field line given without its CRLF.
        init(_ line: UnsafeRawBufferPointer) throws(RequestParseError) {
            if ASCII.isWhitespace(line[0]) {
                // obs-fold (RFC 9112 §5.2), or whitespace between the start line and the first field (§2.2).
                throw .badRequest("field line starts with whitespace (obs-fold is not accepted)")
            }
            var colon = 0
            while colon < line.count, ASCII.isTokenChar(line[colon]) { colon += 1 }
            guard colon < line.count else { throw .badRequest("field line without a colon") }
            if line[colon] != ASCII.colon {
                if ASCII.isWhitespace(line[colon]) { throw .badRequest("whitespace between field name and colon") }
                throw .badRequest("invalid character in field name")
            }
            guard colon > 0 else { throw .badRequest("empty field name") }
            let value = UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]).trimmingWhitespace()
            self.valueIsASCII = try Self.validateValue(value)
            self.name = UnsafeRawBufferPointer(rebasing: line[..<colon])
            self.value = value
        }

        /// Checks field-value bytes (RFC 9110 §5.5) and tells whether they are all ASCII.
        /// Eight bytes at a time while they are plain VCHAR or SP, the common case; a word
        /// holding anything else (HTAB, obs-text, an invalid byte) is checked byte by byte.
        private static func validateValue(_ value: UnsafeRawBufferPointer) throws(RequestParseError) -> Bool {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highBits: UInt64 = 0x8080_8080_8080_8080
            var index = 0
            var high: UInt8 = 0
            while index + 8 <= value.count {
                let word = value.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                // Some byte < 0x20, some byte == 0x7F, some byte >= 0x80 (exact "has less"/"has zero" tricks).
                let belowSpace = (word &- ones &* 0x20) & ~word & highBits
                let isDelete = ((word ^ (ones &* 0x7F)) &- ones) & ~(word ^ (ones &* 0x7F)) & highBits
                if belowSpace | isDelete | (word & highBits) != 0 {
                    for offset in index..<(index + 8) {
                        guard ASCII.isFieldValueChar(value[offset]) else { throw .badRequest("invalid character in field value") }
                        high |= value[offset]
                    }
                }
                index += 8
            }
            while index < value.count {
                guard ASCII.isFieldValueChar(value[index]) else { throw .badRequest("invalid character in field value") }
                high |= value[index]
                index += 1
            }
            return high < 0x80
        }
    }
}
