/// Parses the `filter` of a collection search into a `FilterExpression`, type-checked against
/// the collection's schema.
///
/// The grammar is Meilisearch's (its `filter-parser` crate), written again as a recursive
/// descent, with keywords in any case:
///
/// ```text
/// filter    = or END
/// or        = and ("OR" and)*              AND binds tighter than OR
/// and       = not ("AND" not)*
/// not       = "NOT" not | primary
/// primary   = "(" or ")" | geoRadius | geoBoundingBox | condition
/// condition = field ( ("=" | "!=" | ">" | ">=" | "<" | "<=") value
///                   | "NOT"? "IN" "[" (value ("," value)* ","?)? "]"
///                   | "NOT"? "EXISTS"
///                   | value "TO" value )
/// geoRadius      = "_geoRadius" "(" number "," number "," number ")"
/// geoBoundingBox = "_geoBoundingBox" "(" "[" number "," number "]" "," "[" number "," number "]" ")"
/// ```
///
/// A field or a value is a bare word (letters, digits, `_ - . :`) or quoted (`"..."`, `'...'`;
/// a backslash escapes the quote); a keyword used as a value must be quoted. Values take the
/// type of their field: a string is folded (`FilterValue.fold`), a number is a finite decimal,
/// a boolean is `true` or `false` in any case. `>`, `>=`, `<`, `<=` and `TO` compare numbers only; a geo
/// field is filtered with the geo functions only (and `EXISTS`).
///
/// Bounded: a text longer than `maxLength` bytes is refused before it is read, and nesting
/// (parentheses and `NOT`) deeper than `maxDepth` is an error, so the recursion is bounded.
public struct FilterParser: Sendable {
    /// Default of `maxDepth`.
    public static let defaultMaxDepth = 10
    /// Default of `maxLength`, in UTF-8 bytes.
    public static let defaultMaxLength = 4_096

    public var schema: CollectionSchema
    /// Most parentheses and `NOT`s around a condition.
    public var maxDepth: Int
    /// Longest filter text, in UTF-8 bytes.
    public var maxLength: Int

    public init(schema: CollectionSchema, maxDepth: Int = defaultMaxDepth, maxLength: Int = defaultMaxLength) {
        self.schema = schema
        self.maxDepth = maxDepth
        self.maxLength = maxLength
    }

    /// The expression `text` writes, or nil when it is blank (no filter).
    public func parse(_ text: String) throws(FilterError) -> FilterExpression? {
        let bytes = text.utf8.count
        guard bytes <= maxLength else {
            throw FilterError(position: 0, "the filter is \(bytes) bytes long; the limit is \(maxLength)")
        }
        let tokens = try FilterLexer.tokens(of: text)
        guard tokens.count > 1 else { return nil }
        var cursor = Cursor(tokens: tokens, schema: schema, maxDepth: maxDepth)
        let expression = try cursor.or()
        try cursor.expectEnd()
        return expression
    }
}

extension FilterParser {
    /// The recursive descent over the tokens; one per `parse`.
    struct Cursor {
        let tokens: [FilterToken]
        let schema: CollectionSchema
        let maxDepth: Int
        /// What the text is, for "found the end of the ...": `filter`, `sort`, `facets`.
        let subject: String
        private(set) var index = 0
        private var depth = 0

        init(tokens: [FilterToken], schema: CollectionSchema, maxDepth: Int, subject: String = "filter") {
            self.tokens = tokens
            self.schema = schema
            self.maxDepth = maxDepth
            self.subject = subject
        }

        var current: FilterToken { tokens[index] }

        /// The token before the current one, if any: what an error says came before.
        var previous: FilterToken? { index > 0 ? tokens[index - 1] : nil }

        /// Moves past the current token (never past `.end`) and returns it.
        @discardableResult
        mutating func advance() -> FilterToken {
            let token = tokens[index]
            if index < tokens.count - 1 { index += 1 }
            return token
        }

        /// An error at the current token: `expected WHAT after PREVIOUS, found CURRENT`.
        func expected(_ what: String, hint: String? = nil) -> FilterError {
            var message = "expected \(what)"
            if let previous { message += " after \(previous.quotedForMessage)" }
            if let keyword = current.keyword {
                message += ", found the keyword \(keyword.rawValue) (quote it to use it as a name or a value)"
            } else if current.kind == .end {
                message += ", found the end of the \(subject)"
            } else {
                message += ", found \(current.quotedForMessage)"
            }
            if let hint { message += " (\(hint))" }
            return FilterError(position: current.position, message)
        }

        mutating func or() throws(FilterError) -> FilterExpression {
            var operands = [try and()]
            while current.isKeyword(.or) {
                advance()
                operands.append(try and())
            }
            return operands.count == 1 ? operands[0] : .or(operands)
        }

        mutating func and() throws(FilterError) -> FilterExpression {
            var operands = [try not()]
            while current.isKeyword(.and) {
                advance()
                operands.append(try not())
            }
            return operands.count == 1 ? operands[0] : .and(operands)
        }

        mutating func not() throws(FilterError) -> FilterExpression {
            guard current.isKeyword(.not) else { return try primary() }
            try enter(advance())
            defer { depth -= 1 }
            return .not(try not())
        }

        mutating func primary() throws(FilterError) -> FilterExpression {
            switch current.kind {
            case .leftParenthesis:
                let open = advance()
                try enter(open)
                defer { depth -= 1 }
                let inner = try or()
                guard current.kind == .rightParenthesis else {
                    throw expected("')' to close the '(' at \(open.position)")
                }
                advance()
                return inner
            case .word(let word) where word.hasPrefix("_geo"):
                return try geoFunction(word)
            default:
                return try condition()
            }
        }

        /// One more level of nesting, opened by `token`.
        mutating func enter(_ token: FilterToken) throws(FilterError) {
            depth += 1
            guard depth <= maxDepth else {
                throw FilterError(
                    position: token.position,
                    "the filter nests deeper than \(maxDepth) levels of parentheses and NOT")
            }
        }

        func expectEnd() throws(FilterError) {
            switch current.kind {
            case .end: return
            case .rightParenthesis:
                throw FilterError(position: current.position, "')' closes no '('")
            default:
                throw expected("AND, OR or the end of the filter")
            }
        }
    }
}
