import HTTP
import Search

/// Reads a collection search's `q`, `filter`, `sort`, `facets`, `limit` and `offset`, or fails
/// with a 400 problem that says what is wrong and where.
struct CollectionQueryParameters: Sendable {
    /// `search.maxLimit` (default 250).
    var maxLimit = 250
    /// `search.maxOffset` (default 10,000; the engine's bound is `CollectionQuery.Limits.maxOffset`).
    var maxOffset = 10_000
    /// `search.filterMaxLength` bytes, `search.filterMaxDepth` levels of nesting.
    var filterMaxLength = FilterParser.defaultMaxLength
    var filterMaxDepth = FilterParser.defaultMaxDepth
    /// `search.maxFacets` per query, `search.facetValues` values per facet.
    var maxFacets = FacetsParser.defaultMaxFacets
    var facetValues = CollectionQuery.Limits.defaultFacetValues

    func query(from request: Request, schema: CollectionSchema) throws(HTTPError) -> CollectionQuery {
        let text = request.query["q"] ?? ""
        if text.utf8.count > SearchQuery.Limits.maxTextBytes {
            throw HTTPError(.badRequest, detail: "q is longer than \(SearchQuery.Limits.maxTextBytes) bytes.")
        }
        do {
            let filter = try request.query["filter"].flatMap { text throws(FilterError) in
                try FilterParser(schema: schema, maxDepth: filterMaxDepth, maxLength: filterMaxLength).parse(text)
            }
            let sort = try request.query["sort"].map { text throws(FilterError) in try SortParser(schema: schema).parse(text) } ?? []
            let facets = try request.query["facets"].map { text throws(FilterError) in
                try FacetsParser(schema: schema, maxFacets: maxFacets).parse(text)
            } ?? []
            return CollectionQuery(
                text: text, filter: filter, sort: sort, facets: facets,
                limit: try integer(request, "limit", default: CollectionQuery.Limits.defaultLimit, range: 0...maxLimit),
                offset: try integer(request, "offset", default: 0, range: 0...maxOffset),
                facetValuesLimit: facetValues)
        } catch let error as FilterError {
            throw HTTPError(.badRequest, detail: error.description)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.badRequest, detail: "\(error)")
        }
    }

    private func integer(_ request: Request, _ name: String, default value: Int, range: ClosedRange<Int>) throws(HTTPError) -> Int {
        guard let text = request.query[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw HTTPError(.badRequest, detail: "\(name) must be a whole number within \(range.lowerBound)...\(range.upperBound).")
        }
        return number
    }
}
