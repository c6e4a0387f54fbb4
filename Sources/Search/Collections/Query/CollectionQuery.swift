/// A search of a collection: text, a filter, a sort, facets and a page.
///
/// Text matches as on the cities (folded, typo-tolerant, the last word a prefix unless the text
/// ends with a space); empty text means every document that passes the filter, by rank (or by
/// `sort`). The engine clamps what is out of `Limits`; the service refuses it first (400).
public struct CollectionQuery: Sendable, Hashable {
    public enum Limits {
        /// Most hits per page.
        public static let maxLimit = 1_000
        /// Hits per page unless asked.
        public static let defaultLimit = 10
        /// Largest offset.
        public static let maxOffset = 10_000
        /// Most sort keys used; further ones are ignored.
        public static let maxSortKeys = 4
        /// Most values listed per facet.
        public static let maxFacetValues = 1_000
        /// Values listed per facet unless asked.
        public static let defaultFacetValues = 100
    }

    public var text: String
    public var filter: FilterExpression?
    /// Keys in order of importance; relevance breaks ties.
    public var sort: [SortKey]
    /// Declared fields whose values are counted over all matching documents (number fields
    /// also get `stats`).
    public var facets: [String]
    public var limit: Int
    public var offset: Int
    public var facetValuesLimit: Int

    public init(
        text: String = "", filter: FilterExpression? = nil, sort: [SortKey] = [], facets: [String] = [],
        limit: Int = Limits.defaultLimit, offset: Int = 0, facetValuesLimit: Int = Limits.defaultFacetValues
    ) {
        self.text = text
        self.filter = filter
        self.sort = sort
        self.facets = facets
        self.limit = limit
        self.offset = offset
        self.facetValuesLimit = facetValuesLimit
    }
}
