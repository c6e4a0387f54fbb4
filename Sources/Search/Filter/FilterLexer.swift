/// Splits a filter's text into `FilterToken`s, each with its position in Unicode code points.
///
/// Bare words are letters, digits (any script) and `_ - . :`; a value with anything else is
/// quoted, `"..."` or `'...'`, where a backslash escapes the quote or a backslash (any other
/// backslash is kept as written). Whitespace separates tokens.
struct FilterLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// Every token, ending with `.end`.
    static func tokens(of text: String) throws(FilterError) -> [FilterToken] {
        var lexer = FilterLexer(text)
        var tokens: [FilterToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    mutating func next() throws(FilterError) -> FilterToken {
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        let start = index
        guard index < scalars.count else { return FilterToken(kind: .end, position: start) }
        let scalar = scalars[index]
        index += 1
        func token(_ kind: FilterToken.Kind) -> FilterToken { FilterToken(kind: kind, position: start) }
        switch scalar {
        case "(": return token(.leftParenthesis)
        case ")": return token(.rightParenthesis)
        case "[": return token(.leftBracket)
        case "]": return token(.rightBracket)
        case ",": return token(.comma)
        case "=": return token(.comparison(.equal))
        case "!":
            guard index < scalars.count, scalars[index] == "=" else {
                throw FilterError(position: start, "expected '!=' ('!' alone is not an operator; use NOT)")
            }
            index += 1
            return token(.comparison(.notEqual))
        case ">", "<":
            let orEqual = index < scalars.count && scalars[index] == "="
            if orEqual { index += 1 }
            switch (scalar, orEqual) {
            case (">", false): return token(.comparison(.greater))
            case (">", true): return token(.comparison(.greaterOrEqual))
            case (_, false): return token(.comparison(.less))
            default: return token(.comparison(.lessOrEqual))
            }
        case "\"", "'":
            return token(.quoted(try quoted(by: scalar, from: start)))
        default:
            guard Self.isWordScalar(scalar) else {
                throw FilterError(position: start, "unexpected character '\(scalar.escaped(asASCII: false))': quote a value that has it")
            }
            while index < scalars.count, Self.isWordScalar(scalars[index]) { index += 1 }
            var word = String.UnicodeScalarView()
            word.append(contentsOf: scalars[start..<index])
            return token(.word(String(word)))
        }
    }

    private mutating func quoted(by quote: Unicode.Scalar, from start: Int) throws(FilterError) -> String {
        var text = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == quote { return String(text) }
            if scalar == "\\", index < scalars.count, scalars[index] == quote || scalars[index] == "\\" {
                text.append(scalars[index])
                index += 1
            } else {
                text.append(scalar)
            }
        }
        throw FilterError(position: start, "the value quoted here is not closed: expected a closing \(quote)")
    }

    /// Letters, digits and marks of any script, and `_ - . :`.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".", ":": return true
            default: return false
            }
        }
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }
}
