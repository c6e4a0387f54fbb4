import Testing

@testable import Search

@Suite struct CollectionFacetSortTests {
    private typealias F = CollectionFixtures
    private let index = CollectionIndex(schema: F.products, documents: CollectionFilterTests.documents)

    @Test func facetsAndStatsOverEveryMatchNotThePage() {
        let result = index.search(CollectionQuery(facets: ["brand", "tags", "inStock", "price", "store", "nope", "brand"], limit: 1))
        #expect(result.total == 5)
        #expect(result.hits.count == 1)
        // "Acme" and "acme" count as one value, shown as first spelled (in rank order: document 2 first).
        #expect(result.facets["brand"] == [FacetCount(value: "acme", count: 2), FacetCount(value: "Globex", count: 1), FacetCount(value: "Initech", count: 1)])
        #expect(result.facets["tags"] == [FacetCount(value: "blue", count: 2), FacetCount(value: "green", count: 1), FacetCount(value: "red", count: 1)])
        #expect(result.facets["inStock"] == [FacetCount(value: "false", count: 2), FacetCount(value: "true", count: 2)])
        #expect(result.facets["price"] == [FacetCount(value: "20", count: 2), FacetCount(value: "10", count: 1), FacetCount(value: "30", count: 1)])
        #expect(result.stats == ["price": FacetStats(min: 10, max: 30)])
        #expect(result.facets["store"] == nil && result.facets["nope"] == nil)
        #expect(result.facets.count == 4)
    }

    @Test func facetsFollowTheTextAndTheFilter() {
        let filtered = index.search(CollectionQuery(filter: .compare(field: "price", .greaterOrEqual, .number(20)), facets: ["brand", "price"]))
        #expect(filtered.facets["brand"] == [FacetCount(value: "acme", count: 1), FacetCount(value: "Globex", count: 1), FacetCount(value: "Initech", count: 1)])
        #expect(filtered.stats["price"] == FacetStats(min: 20, max: 30))
        let text = index.search(CollectionQuery(text: "one", facets: ["brand", "price", "inStock"]))
        #expect(text.facets["brand"] == [FacetCount(value: "acme", count: 1)])  // the spelling met first in the collection
        #expect(text.facets["inStock"] == [FacetCount(value: "true", count: 1)])
        #expect(text.stats["price"] == FacetStats(min: 10, max: 10))
        let none = index.search(CollectionQuery(text: "four", facets: ["price"]))
        #expect(none.facets["price"] == [])
        #expect(none.stats["price"] == nil)
        // A spelling with a NUL (a JSON escape) survives whole.
        let nul = CollectionIndex(schema: F.products, documents: [try! F.decode(#"{"sku": "n", "brand": "A\u0000B"}"#)])
        #expect(nul.search(CollectionQuery(facets: ["brand"])).facets["brand"] == [FacetCount(value: "A\u{0}B", count: 1)])
        let limited = index.search(CollectionQuery(facets: ["brand"], facetValuesLimit: 1))
        #expect(limited.facets["brand"] == [FacetCount(value: "acme", count: 2)])
        // Deleted documents leave the counts, with and without a filter.
        let copy = CollectionIndex(schema: F.products, documents: CollectionFilterTests.documents)
        copy.apply([.delete(id: "2")])
        #expect(copy.search(CollectionQuery(facets: ["brand"])).facets["brand"]?.first == FacetCount(value: "Acme", count: 1))
        #expect(copy.search(CollectionQuery(facets: ["inStock"])).facets["inStock"] == [FacetCount(value: "true", count: 2), FacetCount(value: "false", count: 1)])
    }

    /// A facet shows each value as a live document spells it, also once the document whose
    /// spelling its segment kept is replaced or deleted, and after a merge of that segment. Before,
    /// the segment (and the merge) went on showing the spelling of a document no longer there.
    @Test func aFacetsSpellingIsALiveDocumentsOnceTheOneItCameFromIsGone() {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 2  // a write of 4 is a segment of its own, not rebuilt on a delete
        configuration.mergeFanIn = 2
        let index = CollectionIndex(schema: F.products, configuration: configuration)
        func brands() -> [FacetCount] { index.search(CollectionQuery(facets: ["brand"])).facets["brand"] ?? [] }
        // In rank order (price, higher first): 1 spells it "Apple", 2 "APPLE", 3 "acme", 4 "ACME".
        index.apply([
            .upsert(F.product("1", brand: "Apple", price: 40)), .upsert(F.product("2", brand: "APPLE", price: 30)),
            .upsert(F.product("3", brand: "acme", price: 20)), .upsert(F.product("4", brand: "ACME", price: 10)),
        ])
        #expect(brands() == [FacetCount(value: "acme", count: 2), FacetCount(value: "Apple", count: 2)])
        // The first spellings' documents go: the others' spellings remain (before: "Apple" and "acme").
        index.apply([.upsert(F.product("1", brand: "Pear", price: 40))])
        #expect(brands() == [FacetCount(value: "acme", count: 2), FacetCount(value: "APPLE", count: 1), FacetCount(value: "Pear", count: 1)])
        index.apply([.delete(id: "3")])
        #expect(brands() == [FacetCount(value: "ACME", count: 1), FacetCount(value: "APPLE", count: 1), FacetCount(value: "Pear", count: 1)])
        // A write of the same size class: its segment and the first merge into one.
        index.apply([.upsert(F.product("5", brand: "Kiwi", price: 5)), .upsert(F.product("6", brand: "kiwi", price: 6))])
        index.waitForMerges()
        #expect(index.segmentCount == 1)
        #expect(brands() == [
            FacetCount(value: "kiwi", count: 2), FacetCount(value: "ACME", count: 1), FacetCount(value: "APPLE", count: 1),
            FacetCount(value: "Pear", count: 1),
        ])
    }

    @Test func sortByFieldsWithMissingLast() {
        func ids(_ sort: [SortKey], text: String = "") -> [String] { index.search(CollectionQuery(text: text, sort: sort)).hits.map(\.id) }
        // Ties (2 and 5 at 20) fall back to relevance: rank (price, equal), then id.
        #expect(ids([.field("price", descending: false)]) == ["1", "2", "5", "3", "4"])
        #expect(ids([.field("price", descending: true)]) == ["3", "2", "5", "1", "4"])
        #expect(ids([.field("brand", descending: false)]) == ["2", "1", "3", "5", "4"])
        #expect(ids([.field("brand", descending: true)]) == ["5", "3", "2", "1", "4"])
        #expect(ids([.field("inStock", descending: true), .field("price", descending: false)]) == ["1", "4", "2", "5", "3"])
        // string[]: the least value ascending, the greatest descending; an empty array has none.
        #expect(ids([.field("tags", descending: false)]) == ["2", "1", "5", "3", "4"])
        #expect(ids([.field("tags", descending: true)]) == ["1", "5", "2", "3", "4"])
        // Unknown fields and geo fields by name are left out: relevance alone.
        #expect(ids([.field("nope", descending: false), .field("store", descending: false)]) == ids([]))
        // With text, the sort comes first and relevance breaks ties.
        #expect(ids([.field("price", descending: false)], text: "item") == ["1", "2", "5", "3", "4"])
    }

    @Test func pagesOfASortAreSlicesOfTheWholeOrder() {
        let documents = (0..<300).map { i in
            F.product("\(i)", title: "Thing \(i % 7)", brand: "b\(i % 13)", price: i % 5 == 0 ? nil : Double(i % 17))
        }
        let index = CollectionIndex(schema: F.products, documents: documents)
        for sort in [[SortKey.field("price", descending: true)], [.field("brand", descending: false), .field("price", descending: false)]] {
            let whole = index.search(CollectionQuery(sort: sort, limit: 300)).hits.map(\.id)
            var paged: [String] = []
            for offset in stride(from: 0, to: 300, by: 7) {
                paged += index.search(CollectionQuery(sort: sort, limit: 7, offset: offset)).hits.map(\.id)
            }
            #expect(paged == whole)
            #expect(Set(whole).count == 300)
        }
    }

    /// Number facets are counted two ways (a walk of the column's value order for many matches, a
    /// sort of the matches' values for few), per segment, then merged: each must give the counts
    /// and stats a plain count over the documents gives.
    @Test func numberFacetsAgreeWithACountOverTheDocuments() {
        let documents = (0..<600).map { (i: Int) -> CollectionDocument in
            let tags = i % 50 == 0 ? ["rare"] : ["common"]
            let price: Double? = i % 9 == 0 ? nil : Double(i % 31) * 0.5 - 3
            return F.product("\(i)", title: "Thing \(i % 5)", tags: tags, price: price)
        }
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 16
        let index = CollectionIndex(schema: F.products, documents: Array(documents[..<400]), configuration: configuration)
        let changes: [CollectionChange] = documents[400...].map { CollectionChange.upsert($0) } + [.delete(id: "7"), .delete(id: "450")]
        index.apply(changes)
        index.waitForMerges()
        #expect(index.segmentCount > 1)
        let live = documents.filter { $0.id != "7" && $0.id != "450" }
        func price(_ document: CollectionDocument) -> Double {
            if case .number(let price)? = document.values[4] { return price }
            return -.infinity
        }
        func tags(_ document: CollectionDocument) -> [String] {
            if case .strings(let list)? = document.values[1] { return list }
            return []
        }
        func expected(_ passes: (CollectionDocument) -> Bool) -> (counts: [String: Int], stats: FacetStats?) {
            var counts: [Double: Int] = [:]
            for document in live where passes(document) {
                let value = price(document)
                if value.isFinite { counts[value, default: 0] += 1 }
            }
            let stats = counts.keys.min().map { FacetStats(min: $0, max: counts.keys.max()!) }
            return (Dictionary(uniqueKeysWithValues: counts.map { (FacetCounter.format($0.key), $0.value) }), stats)
        }
        let cases: [(CollectionQuery, (CollectionDocument) -> Bool)] = [
            (CollectionQuery(facets: ["price"]), { _ in true }),  // every document: the column walked
            (CollectionQuery(filter: .compare(field: "tags", .equal, .string("rare")), facets: ["price"]), { tags($0) == ["rare"] }),  // few: sorted
            (CollectionQuery(filter: .compare(field: "tags", .equal, .string("common")), facets: ["price"]), { tags($0) == ["common"] }),
            (CollectionQuery(text: "thing", filter: .compare(field: "price", .greater, .number(5)), facets: ["price"]), { price($0) > 5 }),
            (CollectionQuery(text: "thing", filter: .compare(field: "price", .equal, .number(-1)), facets: ["price"]), { price($0) == -1 }),
            (CollectionQuery(text: "thing", facets: ["price"]), { _ in true }),
        ]
        for (query, passes) in cases {
            let result = index.search(query)
            let (counts, stats) = expected(passes)
            let got = Dictionary(uniqueKeysWithValues: (result.facets["price"] ?? []).map { ($0.value, $0.count) })
            #expect(got == counts, "\(query)")
            #expect(result.stats["price"] == stats, "\(query)")
            // Most frequent first, then by value.
            let listed = result.facets["price"] ?? []
            #expect(zip(listed, listed.dropFirst()).allSatisfy { $0.count >= $1.count }, "\(query)")
        }
    }

    @Test func segmentsGiveTheSameResultsAsOneBuild() {
        let colors = ["red", "blue", "green"]
        let documents = (0..<400).map { (i: Int) -> CollectionDocument in
            let price: Double? = i % 10 == 0 ? nil : Double(i % 23)
            let inStock: Bool? = i % 7 == 0 ? nil : i % 2 == 0
            let store: (Double, Double)? = i % 8 == 0 ? nil : (Double(i % 170) - 85, Double(i * 7 % 360) - 180)
            return F.product(
                "\(i)", title: "Thing \(colors[i % 3]) \(i % 11)", tags: ["t\(i % 4)", "u\(i % 6)"],
                brand: "b\(i % 9)", price: price, inStock: inStock, store: store)
        }
        let once = CollectionIndex(schema: F.products, documents: documents)
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 16
        configuration.mergeFanIn = 3
        let batched = CollectionIndex(schema: F.products, configuration: configuration)
        // Inserted out of order, some twice and deleted in between.
        for start in stride(from: 0, to: 400, by: 23) {
            let batch = Array(documents[start..<min(start + 23, 400)].reversed())
            batched.apply(batch.map { CollectionChange.upsert($0) })
            batched.apply([.delete(id: batch[0].id)])
            batched.apply([.upsert(batch[0])])
        }
        batched.waitForMerges()
        #expect(batched.segmentCount > 1)
        let queries = [
            CollectionQuery(facets: ["brand", "price", "tags", "inStock"], limit: 50),
            CollectionQuery(text: "thing red", facets: ["brand", "price"], limit: 50),
            CollectionQuery(text: "t1", filter: .compare(field: "price", .greater, .number(5)), limit: 50),
            CollectionQuery(text: "blu", sort: [.field("brand", descending: false), .field("price", descending: true)], facets: ["tags"], limit: 30, offset: 20),
            CollectionQuery(filter: .geoRadius(center: GeoPoint(latitude: 10, longitude: 20), meters: 3_000_000), sort: [.distance(from: GeoPoint(latitude: 10, longitude: 20), descending: false)], limit: 100),
            CollectionQuery(filter: .not(.exists(field: "inStock")), sort: [.field("tags", descending: true)], facets: ["inStock"], limit: 100),
        ]
        for query in queries {
            #expect(once.search(query) == batched.search(query), "\(query)")
        }
    }
}
