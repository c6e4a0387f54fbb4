import Testing

@testable import Search

/// A small write merges the recent segment with a segment of its own documents from their
/// structures (`CollectionSegment(merging:)`) instead of building one from all their documents
/// again: the recent segment must be the one a build from its live documents makes, array for array.
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

    /// The recent segment is folded into a small write's segment without its bodies read: a
    /// segment whose bodies read as nothing (as a truncated file's do) keeps its documents.
    @Test func aSmallWriteDoesNotDecodeTheRecentSegment() {
        let layout = SchemaLayout(F.products)
        let documents = (0..<6).map { F.product("\($0)", title: "Thing \($0)", price: Double($0)) }
        let built = CollectionSegment(documents, layout: layout)
        let unreadable = built.withBodies(SegmentBodies(bytes: [], ends: Array(repeating: 0, count: built.count)))
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 8
        let index = CollectionIndex(
            schema: F.products, layout: layout, restoring: CollectionSnapshot(parts: [CollectionSnapshot.Part(unreadable)], version: 0),
            configuration: configuration)
        index.apply([.upsert(F.product("6", title: "Thing 6", price: 6))])
        #expect(index.count == 7)
        #expect(index.snapshot.parts.count == 1)
        #expect((0..<7).allSatisfy { index.contains(id: "\($0)") })
        #expect(index.search(CollectionQuery(text: "thing")).total == 7)
    }
}
