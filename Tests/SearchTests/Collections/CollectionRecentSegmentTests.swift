import Testing

@testable import Search

/// Each write folds the recent segment's live documents (kept decoded) into its own segment: the
/// recent segment must be the one a build from its live documents makes, array for array, after
/// upserts, replacements and deletes (the columns of small segments are built on the writer's
/// thread, their front-coded values appended through a buffer).
@Suite struct CollectionRecentSegmentTests {
    private typealias F = CollectionFixtures

    /// Writes of one to three changes (upserts, replacements, deletes) to one recent segment;
    /// after each, that segment against one built from the live documents.
    @Test(arguments: [0, 1])
    func theRecentSegmentIsTheOneItsLiveDocumentsBuild(schemaIndex: Int) {
        let schema = SegmentMergeTests.schemas[schemaIndex]
        let decoder = CollectionDocumentDecoder(schema: schema)
        let documents = SegmentMergeTests.documents(0..<90).map { try! decoder.decode($0.body) }
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 1_000
        let index = CollectionIndex(schema: schema, configuration: configuration)
        var live: [String: CollectionDocument] = [:]
        var next = 0, write = 0
        while next < documents.count {
            var changes: [CollectionChange] = []
            for k in 0..<(1 + write % 3) where next < documents.count {
                if write % 4 == 3, k == 0, let victim = live.keys.sorted().first {
                    changes.append(.delete(id: victim))
                    live[victim] = nil
                } else if write % 5 == 2, k == 0, let replaced = live.keys.sorted().last {
                    // The same id with other values.
                    let document = try! decoder.decode(
                        F.product(replaced, title: "replaced \(write) red", brand: write % 2 == 0 ? "acme" : "ACME", price: Double(write)).body)
                    changes.append(.upsert(document))
                    live[replaced] = document
                } else {
                    changes.append(.upsert(documents[next]))
                    live[documents[next].id] = documents[next]
                    next += 1
                }
            }
            index.apply(changes)
            write += 1
            let parts = index.snapshot.parts
            #expect(parts.count == 1 && parts[0].deletedCount == 0)
            SegmentMergeTests.expectSame(parts[0].segment, CollectionSegment(Array(live.values), layout: index.layout))
        }
        #expect(index.count == live.count)
    }
}
