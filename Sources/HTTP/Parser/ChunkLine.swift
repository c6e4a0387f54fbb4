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
        try validateExtensions(UnsafeRawBufferPointer(rebasing: line[index...]))
        return (size, line.count - index)
    }

    /// `*( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )`,
    /// chunk-ext-val = token / quoted-string.
    private static func validateExtensions(_ bytes: UnsafeRawBufferPointer) throws(RequestParseError) {
        var index = 0
        func skipWhitespace() {
            while index < bytes.count, ASCII.isWhitespace(bytes[index]) { index += 1 }
        }
        func token() -> Bool {
            let start = index
            while index < bytes.count, ASCII.isTokenChar(bytes[index]) { index += 1 }
            return index > start
        }
        while true {
            let beforeWhitespace = index
            skipWhitespace()
            if index == bytes.count {
                // BWS is allowed only before ";" or "=", not at the end of the line.
                guard index == beforeWhitespace else { throw .badRequest("whitespace at the end of a chunk-size line") }
                return
            }
            guard bytes[index] == ASCII.semicolon else { throw .badRequest("invalid chunk extension") }
            index += 1
            skipWhitespace()
            guard token() else { throw .badRequest("invalid chunk extension name") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == ASCII.equals else { continue }
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == ASCII.quote {
                index = try QuotedString.end(in: bytes, from: index)
            } else if !token() {
                throw .badRequest("invalid chunk extension value")
            }
        }
    }
}

/// quoted-string (RFC 9110 §5.6.4).
enum QuotedString {
    /// Given the index of an opening DQUOTE, returns the index after the closing one.
    static func end(in bytes: UnsafeRawBufferPointer, from start: Int) throws(RequestParseError) -> Int {
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.quote { return index + 1 }
            if byte == ASCII.backslash {
                index += 1
                guard index < bytes.count, ASCII.isQuotedTextChar(bytes[index]) else { break }
            } else if !ASCII.isQuotedTextChar(byte) {
                break
            }
            index += 1
        }
        throw .badRequest("invalid quoted string")
    }
}
