/// A search: free text plus paging and filters.
///
/// Semantics: the text is normalized and split into words (see `Normalizer`). The last word is a
/// prefix unless the text ends with a space or punctuation. A document matches when it matches the
/// first word; further words raise its place (ranking by words matched first). A word matches a
/// token of the name or of any alternate name exactly or with typos: none for words of up to 4
/// letters, 1 for 5 to 8, 2 from 9 (Damerau/OSA distance: a transposition is one typo; of two, at
/// most one in the first two letters). Words in Han, kana or Hangul get no typos. Ranking: words
/// matched, fewer typos, then the weighted rank: the rank divided by a factor for how the text
/// matched (whole name, alternate name, start of a name, later word: `RankingRules`).
public struct SearchQuery: Hashable, Sendable {
    /// Bounds the service checks (400) and the engine clamps to.
    public enum Limits {
        /// Most hits per page. Also the default cap applied by the engine.
        public static let maxLimit = 100
        /// Default page size.
        public static let defaultLimit = 10
        /// Largest offset.
        public static let maxOffset = 10_000
        /// Longest query text, in UTF-8 bytes.
        public static let maxTextBytes = 512
        /// Most words used from the text; further words are ignored.
        public static let maxWords = 8
        /// Most country codes in a filter.
        public static let maxCountries = 64
    }

    /// The text as typed.
    public var text: String
    /// Page size, 0...100 (default 10).
    public var limit: Int
    /// Hits to skip, 0...10,000.
    public var offset: Int
    /// Uppercase ISO 3166-1 alpha-2 codes; empty means any country.
    public var countries: [String]
    /// Only documents with at least this rank.
    public var minRank: Double?

    public init(
        _ text: String, limit: Int = Limits.defaultLimit, offset: Int = 0, countries: [String] = [],
        minRank: Double? = nil
    ) {
        self.text = text
        self.limit = limit
        self.offset = offset
        self.countries = countries
        self.minRank = minRank
    }

    /// Throws when a parameter is out of bounds (the service answers 400 with the description).
    public func validate() throws(SearchQueryError) {
        if text.utf8.count > Limits.maxTextBytes { throw .textTooLong(limit: Limits.maxTextBytes) }
        if !(0...Limits.maxLimit).contains(limit) { throw .limitOutOfRange(limit, max: Limits.maxLimit) }
        if !(0...Limits.maxOffset).contains(offset) { throw .offsetOutOfRange(offset, max: Limits.maxOffset) }
        if countries.count > Limits.maxCountries { throw .tooManyCountries(limit: Limits.maxCountries) }
        for code in countries where CountryCode.index(of: code) == CountryCode.none {
            throw .invalidCountryCode(code)
        }
        if let minRank, !minRank.isFinite { throw .nonFiniteMinRank }
    }

    /// A canonical form of the query for caches: the normalized words (and whether the last is a
    /// prefix), page, sorted distinct countries and minimum rank. Two queries with the same key
    /// have the same result on the same index version.
    /// (`PreparedQuery.key`; prepare the query once when the key is not all that is needed.)
    var normalizedKey: String {
        PreparedQuery(self).key
    }

    /// Whether `document` is matched by this query, filters included: a change to a document for
    /// which this is false (before and after the change) cannot alter this query's result.
    func matches(_ document: Document) -> Bool {
        ParsedQuery(self).matches(document)
    }
}

/// Why a query is refused; `description` fits a problem body.
public enum SearchQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    case textTooLong(limit: Int)
    case limitOutOfRange(Int, max: Int)
    case offsetOutOfRange(Int, max: Int)
    case tooManyCountries(limit: Int)
    case invalidCountryCode(String)
    case nonFiniteMinRank

    public var description: String {
        switch self {
        case .textTooLong(let limit): return "the query text is longer than \(limit) bytes"
        case .limitOutOfRange(let value, let max): return "limit \(value) is not within 0...\(max)"
        case .offsetOutOfRange(let value, let max): return "offset \(value) is not within 0...\(max)"
        case .tooManyCountries(let limit): return "more than \(limit) countries"
        case .invalidCountryCode(let code): return "country '\(code.prefix(16))' is not an ISO 3166-1 alpha-2 code"
        case .nonFiniteMinRank: return "minRank is not a finite number"
        }
    }
}
