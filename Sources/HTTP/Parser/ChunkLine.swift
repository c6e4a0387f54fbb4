extension RequestParser {
    /// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1): the size is returned, extensions are
    /// validated and ignored.
    enum ChunkLine {
        /// Parses a chunk-size line given without its CRLF; returns the size and the length of
        /// the chunk extensions.
        static func parse(_ line: UnsafeRawBufferPointer) throws(RequestParseError) -> (size: Int, extensionLength: Int) {
            var index = 0
            var size = 0
            while index < line.count, let digit = ASCII.hexValue(line[index]) {
                // Leading zeros are allowed, so overflow is checked on the value, not the digit count.
                guard size <= (Int.max - Int(digit)) / 16 else {
                    throw .badRequest("chunk size overflows")
                }
                size = size * 16 + Int(digit)
                index += 1
            }
            guard index > 0 else { throw .badRequest("chunk size is not hexadecimal") }
            try ParameterList.validate(UnsafeRawBufferPointer(rebasing: line[index...]), valueRequired: false, what: "chunk extension")
            return (size, line.count - index)
        }
    }
}
