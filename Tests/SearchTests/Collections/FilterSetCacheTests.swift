import Testing

@testable import Search

/// A segment keeps the sets of its recent filters (`FilterSetCache`): a query that finds its
/// filter there must answer exactly as one that computes it, after deletes and replacements in
/// that segment too.
@Suite struct FilterSetCacheTests {
    private typealias F = CollectionFixtures

    private static let documents = (0..<2_000).map { (i: Int) -> CollectionDocument in
        let brand = ["acme", "zeta", "globex"][i % 3]
        return F.product("\(i)", title: "Thing \(i % 7)", brand: brand, price: Double(i % 50))
    }

    private func index(_ textFilter: TextFilterStrategy) -> CollectionIndex {
        var configuration = CollectionIndex.Configuration()
        configuration.textFilter = textFilter
        return CollectionIndex(schema: F.products, documents: Self.documents, configuration: configuration)
    }

    @Test func aCachedSetAnswersAsAComputedOneAfterDeletesAndReplacements() {
        let acme = FilterExpression.compare(field: "brand", .equal, .string("acme"))
        for strategy in [TextFilterStrategy.byCost, .asSet] {
            let index = index(strategy)
            let queries = [
                CollectionQuery(filter: acme, facets: ["brand", "price"], limit: 20),
                CollectionQuery(text: "thing", filter: acme, facets: ["price"], limit: 20),
            ]
            let first = queries.map(index.search)
            #expect(first[0].total == 667 && first[1].total == 667)
            let segment = index.snapshot.parts[0].segment
            #expect(segment.filterSets.contains(acme), "\(strategy)")
            #expect(queries.map(index.search) == first, "\(strategy): a cached set answers the same")
            // Deletes and a replacement that leaves the filter: the cached set of the segment
            // still holds them, the masks must take them out.
            index.apply([.delete(id: "0"), .delete(id: "3"), .upsert(F.product("6", title: "Thing 6", brand: "zeta", price: 6))])
            #expect(index.snapshot.parts[0].segment === segment, "the big segment stays, masked")
            let fresh = CollectionIndex(schema: F.products, documents: Self.documents.filter { !["0", "3", "6"].contains($0.id) } + [F.product("6", title: "Thing 6", brand: "zeta", price: 6)])
            for query in queries {
                let result = index.search(query)
                #expect(result.total == 664, "\(strategy) \(query)")
                #expect(result == fresh.search(query), "\(strategy) \(query)")
                #expect(!result.hits.contains { ["0", "3", "6"].contains($0.id) })
            }
        }
    }

    @Test func itKeepsAtMostItsCapacityNewestFirst() {
        let cache = FilterSetCache()
        var made = 0
        func filter(_ n: Int) -> FilterExpression { .compare(field: "price", .equal, .number(Double(n))) }
        for n in 0..<(FilterSetCache.capacity + 5) {
            _ = cache.documents(for: filter(n)) {
                made += 1
                return DocumentSet(capacity: 10, [UInt32(n % 10)])
            }
        }
        #expect(cache.count == FilterSetCache.capacity)
        #expect(!cache.contains(filter(0)) && !cache.contains(filter(4)) && cache.contains(filter(5)))
        let again = cache.documents(for: filter(FilterSetCache.capacity + 4)) {
            made += 1
            return DocumentSet(capacity: 10)
        }
        #expect(made == FilterSetCache.capacity + 5, "a kept set is not made again")
        #expect(again.contains(UInt32((FilterSetCache.capacity + 4) % 10)))
    }
}
