extension RequestParser {
    /// `*( BWS ";" BWS name [ BWS "=" BWS value ] )`, value = token / quoted-string: the shape of
    /// chunk extensions (RFC 9112 §7.1.1) and of transfer-coding parameters (RFC 9110 §10.1.4,
    /// where the value is required). Whitespace may not end the list.
    enum ParameterList {
        static func validate(_ bytes: UnsafeRawBufferPointer, valueRequired: Bool, what: String) throws(RequestParseError) {
            var index = 0
            func skipWhitespace() {
                while index < bytes.count, ASCII.isWhitespace(bytes[index]) { index += 1 }
            }
            func skipToken() -> Bool {
                let start = index
                while index < bytes.count, ASCII.isTokenChar(bytes[index]) { index += 1 }
                return index > start
            }
            while true {
                let beforeWhitespace = index
                skipWhitespace()
                if index == bytes.count {
                    guard index == beforeWhitespace else { throw .badRequest("whitespace after \(what)") }
                    return
                }
                guard bytes[index] == ASCII.semicolon else { throw .badRequest("invalid \(what)") }
                index += 1
                skipWhitespace()
                guard skipToken() else { throw .badRequest("invalid \(what) name") }
                let afterName = index
                skipWhitespace()
                guard index < bytes.count, bytes[index] == ASCII.equals else {
                    if valueRequired { throw .badRequest("\(what) without a value") }
                    index = afterName
                    continue
                }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == ASCII.quote {
                    index = try QuotedString.end(in: bytes, from: index)
                } else if !skipToken() {
                    throw .badRequest("invalid \(what) value")
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
}
