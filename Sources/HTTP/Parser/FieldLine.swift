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
            while colon < line.count, line[colon] != ASCII.colon {
                let byte = line[colon]
                if ASCII.isWhitespace(byte) {
                    throw .badRequest("whitespace between field name and colon")
                }
                guard ASCII.isTokenChar(byte) else {
                    throw .badRequest("invalid character in field name")
                }
                colon += 1
            }
            guard colon < line.count else { throw .badRequest("field line without a colon") }
            guard colon > 0 else { throw .badRequest("empty field name") }
            let value = UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]).trimmingWhitespace()
            var high: UInt8 = 0
            for byte in value {
                guard ASCII.isFieldValueChar(byte) else { throw .badRequest("invalid character in field value") }
                high |= byte
            }
            self.valueIsASCII = high < 0x80
            self.name = UnsafeRawBufferPointer(rebasing: line[..<colon])
            self.value = value
        }
    }
}
