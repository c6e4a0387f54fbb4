import Base
import Testing

@testable import Search

/// An import's batch indexed ahead of its write (`CollectionIndex.prepare`): the write adds the
/// prepared segment as it is (nothing built under the writer lock), masks the old versions of its
/// documents, and keeps the last version of an id given twice, as a write of the same changes does.
@Suite struct CollectionPreparedBatchTests {
    private typealias F = CollectionFixtures

    static func configuration() -> CollectionIndex.Configuration {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 4
        return configuration
    }

    @Test func aPreparedBatchIsAddedAsBuiltAndMasksTheOldVersions() {
        let index = CollectionIndex(schema: F.products, documents: (0..<8).map { F.product("\($0)", title: "Widget \($0)") }, configuration: Self.configuration())
        let changes: [CollectionChange] = [
            .upsert(F.product("5", title: "Gadget five")), .upsert(F.product("20", title: "Gadget first")),
            .upsert(F.product("21", title: "Gadget 21")), .upsert(F.product("20", title: "Gadget twenty")),
        ]
        let batch = index.prepare(changes.compactMap { if case .upsert(let document) = $0 { document } else { nil } })
        #expect(batch.covers(changes))
        #expect(!batch.covers(changes.dropLast()))
        // A run of a write's changes, read in place: the same ids and bodies in the same order.
        let run = [CollectionChange.delete(id: "x")] + changes
        #expect(batch.covers(run[1...]))
        #expect(!batch.covers(run[0..<4]))
        #expect(!batch.covers(Array(changes.reversed())[...]))
        var edited = changes
        edited[2] = .upsert(F.product("21", title: "Gadget 21 again"))
        #expect(!batch.covers(edited[...]))
        edited[2] = .delete(id: "21")
        #expect(!batch.covers(edited[...]))
        let segments = index.segmentCount

        let outcomes = index.apply(changes, through: 7, prepared: batch)
        #expect(index.segmentCount == segments + 1)
        #expect(index.snapshot.parts.last?.segment === batch.segments.first)  // added as built
        #expect(outcomes.map { $0.previous?.values[0] } == [.string("Widget 5"), nil, nil, .string("Gadget first")])
        #expect(index.count == 10 && index.sequence == 7)
        #expect(index.document(id: "5")?.values[0] == .string("Gadget five"))
        #expect(index.document(id: "20")?.values[0] == .string("Gadget twenty"))
        #expect(Set(F.ids(index.search(CollectionQuery(text: "gadget", limit: 10)))) == ["5", "20", "21"])
        #expect(index.search(CollectionQuery(text: "widget", limit: 10)).total == 7)

        // A later write replaces a prepared document, as any other.
        index.apply([.upsert(F.product("21", title: "Widget again"))])
        #expect(index.search(CollectionQuery(text: "gadget", limit: 10)).total == 2)
        #expect(index.count == 10)
    }

    /// An import's usual batch: each id once (the write then keeps no map of the batch's ids).
    /// Its documents that replace held ones still mask them and report them.
    @Test func aBatchOfDistinctIdsMasksAndReportsTheVersionsItReplaces() {
        let index = CollectionIndex(schema: F.products, documents: (0..<8).map { F.product("\($0)", title: "Widget \($0)") }, configuration: Self.configuration())
        let documents = [F.product("2", title: "Gadget two"), F.product("30", title: "Gadget 30"), F.product("7", title: "Gadget seven")]
        let batch = index.prepare(documents)
        let outcomes = index.apply(documents.map(CollectionChange.upsert), through: 9, prepared: batch)
        #expect(index.snapshot.parts.last?.segment === batch.segments.first)
        #expect(outcomes.map { $0.previous?.values[0] } == [.string("Widget 2"), nil, .string("Widget 7")])
        #expect(index.count == 9 && index.sequence == 9)
        #expect(index.search(CollectionQuery(text: "widget", limit: 10)).total == 6)
        #expect(Set(F.ids(index.search(CollectionQuery(text: "gadget", limit: 10)))) == ["2", "30", "7"])
        #expect(index.document(id: "7")?.values[0] == .string("Gadget seven"))
    }

    @Test func aBatchAnotherIndexPreparedIsIndexedAsUsual() {
        let index = CollectionIndex(schema: F.products, configuration: Self.configuration())
        let other = CollectionIndex(schema: F.products, configuration: Self.configuration())
        let documents = (0..<6).map { F.product("\($0)", title: "Gadget \($0)") }
        let batch = other.prepare(documents)
        index.apply(documents.map(CollectionChange.upsert), prepared: batch)
        #expect(index.snapshot.parts.allSatisfy { $0.segment !== batch.segments.first })
        #expect(index.count == 6 && index.search(CollectionQuery(text: "gadget", limit: 10)).total == 6)
    }
}
