import Testing

@testable import Search

@Suite struct CollectionMatcherTests {
    private typealias F = CollectionFixtures
    private let schema = F.products

    private func matches(_ query: CollectionQuery, _ document: CollectionDocument) -> Bool {
        CollectionQueryMatcher(query, schema: schema).matches(CollectionMatchCandidate(document, schema: schema))
    }

    @Test func firstWordAgainstSearchedFields() {
        let lamp = F.product("1", title: "Desk Lamp", tags: ["office"], brand: "Lumen", price: 30)
        #expect(matches(CollectionQuery(text: "lam"), lamp))
        #expect(matches(CollectionQuery(text: "offi"), lamp))  // a string[] element
        #expect(matches(CollectionQuery(text: "lampp "), lamp))  // five letters: one typo allowed
        // Four letters: one typo, which the index takes when no document holds the word as typed
        // (a write can change that, so a live query allows it always); three: none.
        #expect(matches(CollectionQuery(text: "lamb "), lamp))
        #expect(!matches(CollectionQuery(text: "lmp "), lamp))
        #expect(matches(CollectionQuery(text: "deskk"), lamp))  // one typo within budget
        #expect(!matches(CollectionQuery(text: "lumen"), lamp))  // brand is not searched
        #expect(!matches(CollectionQuery(text: "chair lamp"), lamp))  // the first word decides
        #expect(matches(CollectionQuery(text: "lamp chair"), lamp))
        #expect(matches(CollectionQuery(text: ""), lamp))
        #expect(matches(CollectionQuery(text: "  -- "), lamp))  // no words: like an empty text
    }

    @Test func filterAsTheIndexEvaluatesIt() {
        let filters: [FilterExpression] = [
            .compare(field: "brand", .equal, .string("acme")), .compare(field: "brand", .notEqual, .string("ACME")),
            .compare(field: "tags", .equal, .string("blue")), .compare(field: "tags", .notEqual, .string("blue")),
            .compare(field: "price", .greater, .number(10)), .compare(field: "price", .lessOrEqual, .number(20)),
            .between(field: "price", .number(15), .number(30)), .oneOf(field: "price", [.number(10), .number(30)]),
            .oneOf(field: "brand", [.string("acme"), .string("initech")]), .compare(field: "inStock", .notEqual, .boolean(true)),
            .exists(field: "tags"), .not(.exists(field: "price")), .exists(field: "nope"), .compare(field: "nope", .notEqual, .string("x")),
            .geoRadius(center: GeoPoint(latitude: 48.8566, longitude: 2.3522), meters: 400_000),
            .geoBoundingBox(topLeft: GeoPoint(latitude: 0, longitude: 170), bottomRight: GeoPoint(latitude: -30, longitude: -170)),
            .and([.exists(field: "brand"), .or([.compare(field: "inStock", .equal, .boolean(false)), .not(.compare(field: "price", .less, .number(25)))])]),
        ]
        let documents = CollectionFilterTests.documents
        let index = CollectionIndex(schema: schema, documents: documents)
        for filter in filters {
            let query = CollectionQuery(filter: filter, limit: 100)
            let byIndex = index.search(query).hits.map(\.id).sorted()
            let byMatcher = documents.filter { matches(query, $0) }.map(\.id).sorted()
            #expect(byIndex == byMatcher, "\(filter)")
        }
    }

    @Test func resultsCompareByWhatTheClientSees() {
        let index = CollectionIndex(schema: schema, documents: CollectionFilterTests.documents)
        let query = CollectionQuery(text: "item", filter: .compare(field: "price", .greater, .number(15)), facets: ["brand", "price"], limit: 2)
        let before = index.search(query)
        #expect(index.search(query) == before)
        // A document the query cannot see: the matcher says so, and the result is unchanged.
        let unrelated = F.product("9", title: "Other", price: 99)
        #expect(!matches(query, unrelated))
        index.apply([.upsert(unrelated)])
        #expect(index.search(query) == before)
        // A document it can see changes the facets (not the page): the result differs.
        let related = F.product("8", title: "Item eight", brand: "Zeta", price: 16)
        #expect(matches(query, related))
        index.apply([.upsert(related)])
        let after = index.search(query)
        #expect(after.hits == before.hits)
        #expect(after != before)
        // The old version of a changed document matters too: it leaves the result.
        let outcome = index.apply([.upsert(F.product("8", title: "Gone", price: 16))])
        #expect(outcome[0].previous.map { matches(query, $0) } == true)
        #expect(index.search(query) == before)
    }
}
