/// The answer to a `SearchQuery`.
public struct SearchResult: Sendable, Equatable {
    /// The query text as given.
    public var query: String
    /// Number of matching documents (all pages, filters applied). Documents that match only with
    /// a typo in the first letters count when those typos were looked for (`docs/search.md`).
    public var total: Int
    /// The requested page, best first.
    public var hits: [Hit]

    public init(query: String, total: Int, hits: [Hit]) {
        self.query = query
        self.total = total
        self.hits = hits
    }
}

/// One matching document.
public struct Hit: Sendable, Equatable {
    public var document: Document
    /// Matched parts of `document.name` as half-open `[start, end)` ranges in Unicode scalar
    /// (code point) offsets, ascending and disjoint. Empty when only an alternate name matched.
    public var highlight: [[Int]]
    /// Query words this document matched.
    public var wordsMatched: Int
    /// Typos over the matched words.
    public var typos: Int

    public init(document: Document, highlight: [[Int]], wordsMatched: Int, typos: Int) {
        self.document = document
        self.highlight = highlight
        self.wordsMatched = wordsMatched
        self.typos = typos
    }
}
