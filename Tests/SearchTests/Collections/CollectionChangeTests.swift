import Testing

@testable import Search

@Suite struct CollectionChangeTests {
    private typealias F = CollectionFixtures

    @Test func batchesAreVisibleToTheNextSearch() {
        let index = CollectionIndex(schema: F.products, documents: [F.product("1", title: "Lamp", price: 1)])
        #expect(index.version == 0)
        let outcomes = index.apply([
            .upsert(F.product("2", title: "Lamp", price: 2)),
            .upsert(F.product("1", title: "Chair", price: 1)),  // replaces
            .delete(id: "missing"),
        ])
        #expect(outcomes.map { $0.previous?.id } == [nil, "1", nil])
        #expect(outcomes[1].previous?.values[0] == .string("Lamp"))
        #expect(index.version == 1)
        #expect(F.ids(index.search(CollectionQuery(text: "lamp"))) == ["2"])
        #expect(F.ids(index.search(CollectionQuery(text: "chair"))) == ["1"])
        #expect(index.count == 2)
        index.apply([.delete(id: "2")])
        #expect(index.search(CollectionQuery(text: "lamp")).total == 0)
        #expect(index.document(id: "2") == nil)
        #expect(index.document(id: "1")?.values[0] == .string("Chair"))
        #expect(index.version == 2)
        // A batch that changes nothing keeps the version.
        index.apply([.delete(id: "2")])
        #expect(index.version == 2)
    }

    @Test func sameIdTwiceInABatchKeepsTheLast() {
        let index = CollectionIndex(schema: F.products)
        let outcomes = index.apply([
            .upsert(F.product("1", title: "First")), .upsert(F.product("1", title: "Second")), .delete(id: "1"),
            .upsert(F.product("1", title: "Third")),
        ])
        #expect(outcomes.map { $0.previous?.values[0] } == [nil, .string("First"), .string("Second"), nil])
        #expect(index.count == 1)
        #expect(F.ids(index.search(CollectionQuery(text: "third"))) == ["1"])
        #expect(index.search(CollectionQuery(text: "second")).total == 0)
    }

    @Test func replacedDocumentsAreNotCountedTwiceAcrossSegments() {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 4
        configuration.mergeFanIn = 2
        let index = CollectionIndex(
            schema: F.products, documents: (0..<50).map { F.product("\($0)", title: "Widget \($0)", price: Double($0)) },
            configuration: configuration)
        // Many small batches: new segments, merges, rewrites of mostly deleted ones; a
        // dictionary of titles is the reference.
        var model = [String: String]()
        for i in 0..<50 { model["\(i)"] = "Widget \(i)" }
        for round in 0..<20 {
            index.apply((0..<5).map { .upsert(F.product("\(round * 3 + $0)", title: "Widget v\(round)", price: Double(round))) })
            for i in 0..<5 { model["\(round * 3 + i)"] = "Widget v\(round)" }
            index.apply([.delete(id: "\(49 - round)")])
            model["\(49 - round)"] = nil
            #expect(index.count == model.count)
        }
        index.waitForMerges()  // merges run in the background: the counts below are after them
        let result = index.search(CollectionQuery(text: "widget", limit: 1_000))
        #expect(result.total == model.count)
        #expect(Set(F.ids(result)) == Set(model.keys))
        #expect(index.segmentCount < 10)
        #expect(index.search(CollectionQuery(text: "v19")).total == model.values.count { $0 == "Widget v19" })
        #expect(index.search(CollectionQuery(limit: 1_000)).total == model.count)
        for (id, title) in model { #expect(index.document(id: id)?.values[0] == .string(title)) }
    }

    /// The recent segment keeps its documents as indexed, and a write folds the live ones into its
    /// own segment from there (no decoding of their bodies): replaced and deleted ones stay out.
    @Test func theRecentSegmentKeepsItsLiveDocumentsForTheNextWrite() {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 8
        let index = CollectionIndex(schema: F.products, configuration: configuration)
        for i in 0..<5 { index.apply([.upsert(F.product("\(i)", title: "Thing \(i)", price: Double(i)))]) }
        index.apply([.upsert(F.product("1", title: "Changed", price: 10)), .delete(id: "3")])
        index.apply([.upsert(F.product("5", title: "Thing 5", price: 5))])
        let parts = index.snapshot.parts
        #expect(parts.count == 1)
        let kept = parts.last?.recentDocuments ?? []
        #expect(Set(kept.map(\.id)) == ["0", "1", "2", "4", "5"])
        #expect(kept.first { $0.id == "1" }?.values[0] == .string("Changed"))
        #expect(index.count == 5 && index.search(CollectionQuery(text: "thing")).total == 4)
        #expect(index.document(id: "1")?.values[0] == .string("Changed") && index.document(id: "3") == nil)
        // A segment as large as the recent limit is not recent: it keeps no documents.
        index.apply((10..<20).map { .upsert(F.product("\($0)", title: "Batch", price: Double($0))) })
        #expect(index.snapshot.parts.allSatisfy { $0.recentDocuments == nil })
        #expect(index.count == 15)
    }

    @Test func mergesKeepEveryDocument() {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 8
        configuration.mergeFanIn = 2
        let index = CollectionIndex(schema: F.products, configuration: configuration)
        for i in 0..<200 { index.apply([.upsert(F.product("\(i)", title: "Thing \(i)", price: Double(i)))]) }
        index.waitForMerges()
        #expect(index.count == 200)
        #expect(index.search(CollectionQuery(text: "thing")).total == 200)
        #expect(F.ids(index.search(CollectionQuery(text: "thing", limit: 3))) == ["199", "198", "197"])
        #expect(index.segmentCount <= 8)
        #expect(index.version == 200)
    }
}
