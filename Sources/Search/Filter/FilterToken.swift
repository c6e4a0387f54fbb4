/// One token of a filter's text, with where it starts (in Unicode code points).
struct FilterToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A bare word: letters, digits, `_ - . :`. A keyword (`AND`, `or`...) is a word too;
        /// the parser tells them apart, case-insensitively.
        case word(String)
        /// A `"..."` or `'...'` value, unescaped; never a keyword.
        case quoted(String)
        case comparison(FilterComparison)
        case leftParenthesis, rightParenthesis, leftBracket, rightBracket, comma
        case end
    }

    var kind: Kind
    var position: Int

    /// The keywords of the grammar, which a bare word cannot be (quote them to use them as values).
    enum Keyword: String, CaseIterable {
        case and = "AND", or = "OR", not = "NOT", `in` = "IN", to = "TO", exists = "EXISTS"
    }

    /// The keyword this token is, if it is a bare word spelling one in any case.
    var keyword: Keyword? {
        guard case .word(let word) = kind, word.utf8.count <= 6 else { return nil }
        return Keyword(rawValue: word.uppercased())
    }

    func isKeyword(_ keyword: Keyword) -> Bool { self.keyword == keyword }

    /// The text of a word or a quoted value that is not a keyword: a field name or a value.
    var value: String? {
        switch kind {
        case .word(let word): return keyword == nil ? word : nil
        case .quoted(let text): return text
        default: return nil
        }
    }

    /// How the token reads in an error message.
    var quotedForMessage: String {
        switch kind {
        case .word(let word): return "'\(FilterToken.abbreviated(word))'"
        case .quoted(let text): return "'\(FilterToken.abbreviated(text))'"
        case .comparison(let comparison): return "'\(comparison.rawValue)'"
        case .leftParenthesis: return "'('"
        case .rightParenthesis: return "')'"
        case .leftBracket: return "'['"
        case .rightBracket: return "']'"
        case .comma: return "','"
        case .end: return "the end"
        }
    }

    /// `text` cut to a length that keeps an error message readable.
    static func abbreviated(_ text: String, limit: Int = 40) -> String {
        text.unicodeScalars.count <= limit ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit))) + "…"
    }
}
