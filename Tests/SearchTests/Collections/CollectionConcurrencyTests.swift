import Testing

@testable import Search

@Suite struct CollectionConcurrencyTests {
    private typealias F = CollectionFixtures

    /// Readers never wait for the writer and always see one whole snapshot: every batch replaces
    /// all documents (same ids, a new title), so a search sees 40 documents of one generation.
    @Test func readersSeeWholeBatches() async {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 8
        configuration.mergeFanIn = 2
        let documents: @Sendable (Int) -> [CollectionDocument] = { generation in (0..<40).map { F.product("\($0)", title: "Gen\(generation) item", price: Double($0)) } }
        let index = CollectionIndex(schema: F.products, documents: documents(0), configuration: configuration)
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for generation in 1...60 { index.apply(documents(generation).map { .upsert($0) }) }
                return true
            }
            for _ in 0..<3 {
                group.addTask {
                    var consistent = true
                    for _ in 0..<200 {
                        let result = index.search(CollectionQuery(text: "item", facets: ["title"], limit: 100))
                        let titles = result.facets["title"] ?? []
                        consistent = consistent && result.total == 40 && titles.count == 1 && titles[0].count == 40
                    }
                    return consistent
                }
            }
            for await consistent in group { #expect(consistent) }
        }
        #expect(index.version == 60)
        #expect(index.search(CollectionQuery(text: "gen60")).total == 40)
    }
}
