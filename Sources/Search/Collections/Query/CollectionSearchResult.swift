/// The answer to a `CollectionQuery`. `Equatable` compares what a client sees (hits, total,
/// facets, stats): the service sends a live query a new result only when it differs.
public struct CollectionSearchResult: Sendable, Equatable {
    /// Every matching document, all pages.
    public var total: Int
    /// The requested page, best first.
    public var hits: [CollectionHit]
    /// Per requested facet field: its values over all matching documents, most frequent first,
    /// then by value; at most `facetValuesLimit` of them.
    public var facets: [String: [FacetCount]]
    /// Per requested `number` facet field: the smallest and largest value over all matching
    /// documents (absent when none has a value).
    public var stats: [String: FacetStats]

    public init(total: Int, hits: [CollectionHit], facets: [String: [FacetCount]] = [:], stats: [String: FacetStats] = [:]) {
        self.total = total
        self.hits = hits
        self.facets = facets
        self.stats = stats
    }
}

/// One matching document.
public struct CollectionHit: Sendable, Equatable {
    public var id: String
    /// The document's JSON body as stored.
    public var body: [UInt8]
    /// Per searched field with a match: `[start, end)` ranges in Unicode code points; for a
    /// `string[]` field `[index, start, end]`, `index` being the element's.
    public var highlight: [String: [[Int]]]
    /// Meters from the point the sort or the filter names (`_geoPoint`, `_geoRadius`), when the
    /// document has a geo value.
    public var distance: Double?
    /// Query words the document matched.
    public var wordsMatched: Int
    /// Typos over the matched words.
    public var typos: Int

    public init(id: String, body: [UInt8], highlight: [String: [[Int]]], distance: Double?, wordsMatched: Int, typos: Int) {
        self.id = id
        self.body = body
        self.highlight = highlight
        self.distance = distance
        self.wordsMatched = wordsMatched
        self.typos = typos
    }
}

/// A facet value and how many matching documents hold it. Strings are shown as first spelled
/// in the collection (counted after case folding); numbers and booleans as JSON writes them.
public struct FacetCount: Sendable, Hashable {
    public var value: String
    public var count: Int

    public init(value: String, count: Int) {
        self.value = value
        self.count = count
    }
}

/// The range of a number field over the matching documents.
public struct FacetStats: Sendable, Hashable {
    public var min: Double
    public var max: Double

    public init(min: Double, max: Double) {
        self.min = min
        self.max = max
    }
}
