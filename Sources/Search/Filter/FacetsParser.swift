/// Parses the `facets` parameter of a collection search: `brand,price` → the names of the
/// fields whose values are counted, in the order given, each once.
///
/// A facet is a declared field that is not geo. Errors carry positions as `FilterParser`'s do.
public struct FacetsParser: Sendable {
    /// Default of `maxFacets`.
    public static let defaultMaxFacets = 10
    /// Default of `maxLength`, in UTF-8 bytes.
    public static let defaultMaxLength = 1_024

    public var schema: CollectionSchema
    /// Most facets in one search (after duplicates are removed).
    public var maxFacets: Int
    /// Longest facets text, in UTF-8 bytes.
    public var maxLength: Int

    public init(schema: CollectionSchema, maxFacets: Int = defaultMaxFacets, maxLength: Int = defaultMaxLength) {
        self.schema = schema
        self.maxFacets = maxFacets
        self.maxLength = maxLength
    }

    /// The field names `text` lists; empty when it is blank.
    public func parse(_ text: String) throws(FilterError) -> [String] {
        let bytes = text.utf8.count
        guard bytes <= maxLength else {
            throw FilterError(position: 0, "the facets are \(bytes) bytes long; the limit is \(maxLength)")
        }
        let tokens = try FilterLexer.tokens(of: text)
        var cursor = FilterParser.Cursor(tokens: tokens, schema: schema, maxDepth: 0, subject: "facets")
        var names: [String] = []
        while cursor.current.kind != .end {
            if !names.isEmpty || cursor.index > 0 {
                guard cursor.current.kind == .comma else { throw cursor.expected("',' or the end of the facets") }
                cursor.advance()
            }
            let token = cursor.current
            let name: String
            switch token.kind {
            case .word(let word), .quoted(let word): name = word
            default: throw cursor.expected("a field name")
            }
            cursor.advance()
            guard let field = schema.field(named: name) else {
                throw FilterError(position: token.position, "the field '\(FilterToken.abbreviated(name))' is not declared in the collection's schema")
            }
            guard field.type != .geo else {
                throw FilterError(position: token.position, "'\(name)' is a geo field, which has no values to count")
            }
            guard !names.contains(name) else { continue }
            guard names.count < maxFacets else {
                throw FilterError(position: token.position, "more than \(maxFacets) facets")
            }
            names.append(name)
        }
        return names
    }
}
