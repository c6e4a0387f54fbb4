import Testing

@testable import Search

@Suite struct CollectionFilterTests {
    private typealias F = CollectionFixtures

    static let documents = [
        F.product("1", title: "Item one", tags: ["red", "Blue"], brand: "Acme", price: 10, inStock: true, store: (48.8566, 2.3522)),
        F.product("2", title: "Item two", tags: ["blue"], brand: "acme", price: 20, inStock: false, store: (51.5074, -0.1278)),
        F.product("3", title: "Item three", tags: [], brand: "Globex", price: 30),
        F.product("4", title: "Item four", inStock: true, store: (-17.7, 178.0)),
        F.product("5", title: "Item five", tags: ["green"], brand: "Initech", price: 20, inStock: false, store: (-17.0, -179.5)),
    ]
    let index = CollectionIndex(schema: F.products, documents: documents)
    /// The same documents, with text queries forced to test the filter per document or as a set.
    let perDocument = Self.index(.perDocument)
    let asSet = Self.index(.asSet)

    private static func index(_ textFilter: TextFilterStrategy) -> CollectionIndex {
        var configuration = CollectionIndex.Configuration()
        configuration.textFilter = textFilter
        return CollectionIndex(schema: F.products, documents: documents, configuration: configuration)
    }

    /// Ids passing `filter`, sorted; checked to be the same through the set path (empty text),
    /// the text path with the filter as a set, and the text path testing each document.
    private func ids(_ filter: FilterExpression, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let bySet = index.search(CollectionQuery(filter: filter, limit: 100)).hits.map(\.id).sorted()
        let byTextAndSet = asSet.search(CollectionQuery(text: "item", filter: filter, limit: 100)).hits.map(\.id).sorted()
        let byDocument = perDocument.search(CollectionQuery(text: "item", filter: filter, limit: 100)).hits.map(\.id).sorted()
        #expect(index.search(CollectionQuery(text: "item", filter: filter, limit: 100)).hits.map(\.id).sorted() == bySet, sourceLocation: sourceLocation)
        #expect(bySet == byTextAndSet, "set evaluation differs with text", sourceLocation: sourceLocation)
        #expect(bySet == byDocument, "set and per-document evaluation differ", sourceLocation: sourceLocation)
        #expect(index.search(CollectionQuery(filter: filter, limit: 0)).total == bySet.count, sourceLocation: sourceLocation)
        return bySet
    }

    @Test func stringEqualityIsExactAfterCaseFolding() {
        #expect(ids(.compare(field: "brand", .equal, .string("acme"))) == ["1", "2"])
        #expect(ids(.compare(field: "brand", .equal, .string("ACME"))) == ["1", "2"])
        #expect(ids(.compare(field: "brand", .equal, .string("acm"))) == [])
        // != includes the document without a brand.
        #expect(ids(.compare(field: "brand", .notEqual, .string("acme"))) == ["3", "4", "5"])
        #expect(ids(.oneOf(field: "brand", [.string("acme"), .string("initech"), .string("none")])) == ["1", "2", "5"])
    }

    @Test func stringArraysMatchAnyElement() {
        #expect(ids(.compare(field: "tags", .equal, .string("blue"))) == ["1", "2"])
        #expect(ids(.compare(field: "tags", .notEqual, .string("blue"))) == ["3", "4", "5"])
        #expect(ids(.oneOf(field: "tags", [.string("red"), .string("green")])) == ["1", "5"])
    }

    @Test func numbers() {
        let price = "price"
        #expect(ids(.compare(field: price, .greater, .number(10))) == ["2", "3", "5"])
        #expect(ids(.compare(field: price, .greaterOrEqual, .number(20))) == ["2", "3", "5"])
        #expect(ids(.compare(field: price, .less, .number(20))) == ["1"])
        #expect(ids(.compare(field: price, .lessOrEqual, .number(20))) == ["1", "2", "5"])
        #expect(ids(.compare(field: price, .equal, .number(20))) == ["2", "5"])
        #expect(ids(.compare(field: price, .notEqual, .number(20))) == ["1", "3", "4"])
        #expect(ids(.between(field: price, .number(15), .number(30))) == ["2", "3", "5"])
        #expect(ids(.between(field: price, .number(30), .number(15))) == [])
        #expect(ids(.oneOf(field: price, [.number(10), .number(30)])) == ["1", "3"])
    }

    @Test func booleans() {
        #expect(ids(.compare(field: "inStock", .equal, .boolean(true))) == ["1", "4"])
        #expect(ids(.compare(field: "inStock", .equal, .boolean(false))) == ["2", "5"])
        #expect(ids(.compare(field: "inStock", .notEqual, .boolean(true))) == ["2", "3", "5"])
        #expect(ids(.oneOf(field: "inStock", [.boolean(true), .boolean(false)])) == ["1", "2", "4", "5"])
    }

    @Test func existsAndNot() {
        #expect(ids(.exists(field: "price")) == ["1", "2", "3", "5"])
        #expect(ids(.exists(field: "tags")) == ["1", "2", "3", "5"])  // an empty array is a value
        #expect(ids(.exists(field: "inStock")) == ["1", "2", "4", "5"])
        #expect(ids(.exists(field: "store")) == ["1", "2", "4", "5"])
        #expect(ids(.exists(field: "brand")) == ["1", "2", "3", "5"])
        #expect(ids(.not(.exists(field: "price"))) == ["4"])
        #expect(ids(.not(.compare(field: "price", .greater, .number(15)))) == ["1", "4"])
    }

    @Test func nesting() {
        let acmeOrGlobex: FilterExpression = .or([.compare(field: "brand", .equal, .string("acme")), .compare(field: "brand", .equal, .string("globex"))])
        #expect(ids(.and([acmeOrGlobex, .not(.compare(field: "price", .greater, .number(15)))])) == ["1"])
        #expect(ids(.or([.and([acmeOrGlobex, .compare(field: "inStock", .equal, .boolean(false))]), .not(.exists(field: "brand"))])) == ["2", "4"])
        #expect(ids(.not(.not(.and([.exists(field: "tags"), .compare(field: "tags", .equal, .string("red"))])))) == ["1"])
        #expect(ids(.and([])) == ["1", "2", "3", "4", "5"])
        #expect(ids(.or([])) == [])
    }

    @Test func whatTheSchemaCannotHoldMatchesNothing() {
        #expect(ids(.compare(field: "nope", .equal, .string("x"))) == [])
        #expect(ids(.compare(field: "nope", .notEqual, .string("x"))) == ["1", "2", "3", "4", "5"])
        #expect(ids(.compare(field: "price", .equal, .string("x"))) == [])
        #expect(ids(.compare(field: "brand", .greater, .string("a"))) == [])
        #expect(ids(.exists(field: "nope")) == [])
    }

    @Test func filterAppliesToTextMatchesAndTotal() {
        let result = index.search(CollectionQuery(text: "item", filter: .compare(field: "price", .greaterOrEqual, .number(20)), limit: 1))
        #expect(result.total == 3)
        #expect(result.hits.map(\.id) == ["3"])
    }
}
