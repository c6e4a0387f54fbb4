/// A query compiled once for the question live queries ask on every write:
/// could a change to this document alter this query's result?
///
/// The rule is the index's own, brute force: the filters pass and the first
/// word matches a token of one of the document's names (within its typo budget).
public struct QueryMatcher: Sendable {
    private let parsed: ParsedQuery

    public init(_ query: SearchQuery) {
        parsed = ParsedQuery(query)
    }

    /// The matcher of a query already normalized for its search.
    public init(_ prepared: PreparedQuery) {
        parsed = prepared.parsed
    }

    init(_ parsed: ParsedQuery) {
        self.parsed = parsed
    }

    public func matches(_ candidate: MatchCandidate) -> Bool {
        guard let first = parsed.words.first, parsed.passesFilters(candidate.document) else { return false }
        return candidate.tokens.contains { first.match($0[...]) != nil }
    }
}

/// A document whose names are normalized once, to be tested against many `QueryMatcher`s.
public struct MatchCandidate: Sendable {
    let document: Document
    let tokens: [[UInt16]]

    public init(_ document: Document) {
        self.document = document
        var buffer = TokenBuffer()
        var tokens: [[UInt16]] = []
        for name in CollectionOfOne(document.name) + document.alternateNames {
            Normalizer.scan(name, into: &buffer)
            tokens += buffer.spans.map { Array(buffer.units(of: $0)) }
        }
        self.tokens = tokens
    }
}
