import Base
import Dispatch
import Foundation
import Testing

@testable import Search

/// Merges build outside the writer lock (issue 25: a merge of four segments of 65,536 held writes
/// for seconds): writes made while a merge builds are answered at once, and the swap carries
/// their deletes and replacements over to the merged segment, so none is lost and none comes back.
@Suite struct CollectionMergeTests {
    private typealias F = CollectionFixtures

    /// Holds the first merge once its segment is built, until the test lets it go.
    final class Gate: Sendable {
        let reached = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        private let held = Locked(false)
        /// Whether each merge was built on a merge's own thread.
        let onMergeThread = Locked<Set<Bool>>([])
        /// Merged segments built so far.
        let builds = Locked(0)

        func built() {
            _ = onMergeThread.withLock { $0.insert(CollectionIndex.isMergeThread) }
            builds.withLock { $0 += 1 }
            guard held.withLock({ held in defer { held = true }; return !held }) else { return }
            reached.signal()
            proceed.wait()
        }
    }

    /// Small segments merge two at a time: two writes of 8 documents start a merge.
    static let configuration = {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 4
        configuration.mergeFanIn = 2
        return configuration
    }()

    /// An empty index of `configuration` whose merges `gate` holds once built.
    static func index(heldAt gate: Gate) -> CollectionIndex {
        CollectionIndex(schema: F.products, documents: [], sequence: 0, configuration: configuration, mergeBuilt: { gate.built() })
    }

    @Test func writesDuringAMergeAreNeitherLostNorResurrected() async {
        let gate = Gate()
        let index = Self.index(heldAt: gate)
        let model = Locked([String: String]())
        @Sendable func upsert(_ ids: [Int], _ title: String) {
            index.apply(ids.map { .upsert(F.product("\($0)", title: "\(title) \($0)", price: Double($0))) })
            model.withLock { model in for id in ids { model["\(id)"] = "\(title) \(id)" } }
        }
        @Sendable func delete(_ ids: [Int]) {
            index.apply(ids.map { .delete(id: "\($0)") })
            model.withLock { model in for id in ids { model["\(id)"] = nil } }
        }
        await offThePool {
            // Two segments of 8 (one size class, fan-in 2): the second write starts their merge.
            upsert(Array(0..<8), "Widget")
            upsert(Array(8..<16), "Widget")
            gate.reached.wait()  // the merged segment is built, not swapped in
            #expect(index.segmentCount == 2)
            // Writes are answered while the merge holds; each is searchable at once.
            delete([0, 9])
            upsert([1, 8], "Changed")
            delete([2])
            upsert([2], "Back")
            upsert([100, 101], "Widget")
            #expect(index.document(id: "1")?.values[0] == .string("Changed 1"))
            #expect(index.document(id: "0") == nil)
            #expect(index.search(CollectionQuery(text: "widget", limit: 100)).total == 13)
            gate.proceed.signal()
            index.waitForMerges()
        }
        let expected = model.withLock { $0 }
        #expect(index.segmentCount < 4)
        #expect(index.count == expected.count)
        for id in ["0", "9"] { #expect(index.document(id: id) == nil, "\(id) came back") }
        for (id, title) in expected { #expect(index.document(id: id)?.values[0] == .string(title), "\(id)") }
        let all = index.search(CollectionQuery(limit: 1_000))
        #expect(all.total == expected.count)
        #expect(Set(F.ids(all)) == Set(expected.keys))
        #expect(index.search(CollectionQuery(text: "widget", limit: 100)).total == 13)
        #expect(F.ids(index.search(CollectionQuery(text: "changed"))).sorted() == ["1", "8"])
        #expect(F.ids(index.search(CollectionQuery(text: "back"))) == ["2"])
        // A merge changes no answer: no write was counted by it, but a save must see it.
        #expect(index.version == 7)
        #expect(index.revision > index.version)
        // On the merge's own thread, not on the pool Swift's tasks run on.
        #expect(gate.onMergeThread.withLock { $0 } == [true])
    }

    /// A save taken while a merge builds holds the segments before it; the next save the merged
    /// one; an index restored from the first merges them again by itself.
    @Test func aSaveDuringAMergeRestoresAlike() async throws {
        let gate = Gate()
        let index = Self.index(heldAt: gate)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("merge-save-\(UInt64.random(in: 0...UInt64.max))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let saves = Locked<[Int]>([])
        await offThePool {
            index.apply((0..<8).map { .upsert(F.product("\($0)", title: "Widget \($0)")) }, through: 8)
            index.apply((8..<16).map { .upsert(F.product("\($0)", title: "Widget \($0)")) }, through: 16)
            gate.reached.wait()
            index.apply([.upsert(F.product("100", title: "Widget 100"))], through: 17)
            let saved = try? index.save(to: directory, epoch: "e")
            saves.withLock { $0.append(saved?.segmentsWritten ?? -1) }
            gate.proceed.signal()
            index.waitForMerges()
        }
        #expect(saves.withLock { $0 } == [3])
        // Restored from the save made before the swap: the merge runs again, on its own.
        let (unmerged, _) = try CollectionIndex.restore(from: directory, configuration: Self.configuration)
        unmerged.waitForMerges()
        #expect(unmerged.segmentCount == 2)
        #expect(unmerged.count == 17)
        #expect(index.segmentCount == 2)
        #expect(try index.save(to: directory, epoch: "e").segmentsWritten == 1)
        let (restored, _) = try CollectionIndex.restore(from: directory)
        #expect(restored.count == 17)
        #expect(restored.document(id: "100") != nil)
        #expect(restored.search(CollectionQuery(text: "widget", limit: 100)).total == 17)
    }

    /// An index retired while its merge builds (its collection's schema replaced, or the collection
    /// deleted) drops the merged segment instead of swapping it in and starts no other merge;
    /// every write made meanwhile stays.
    @Test func aRetiredIndexStopsMergingAndKeepsEveryWrite() async {
        let gate = Gate()
        let index = Self.index(heldAt: gate)
        await offThePool {
            // Two segments of 8 (one size class, fan-in 2): the second write starts their merge.
            index.apply((0..<8).map { .upsert(F.product("\($0)", title: "Widget \($0)")) })
            index.apply((8..<16).map { .upsert(F.product("\($0)", title: "Widget \($0)")) })
            gate.reached.wait()  // the merged segment is built, not swapped in
            index.retire()
            // A delete and a replacement in the segments being merged, and a third segment of
            // their size class (9 documents with the replacement's): a merge would follow.
            index.apply([.delete(id: "0"), .upsert(F.product("1", title: "Changed 1"))])
            index.apply((16..<24).map { .upsert(F.product("\($0)", title: "Widget \($0)")) })
            gate.proceed.signal()
            index.waitForMerges()
        }
        #expect(index.isRetired)
        #expect(gate.builds.withLock { $0 } == 1)
        #expect(index.segmentCount == 3)
        #expect(index.count == 23)
        #expect(index.document(id: "0") == nil)
        #expect(index.document(id: "1")?.values[0] == .string("Changed 1"))
        #expect(index.search(CollectionQuery(text: "widget", limit: 100)).total == 22)
        #expect(Set(F.ids(index.search(CollectionQuery(limit: 100)))) == Set((1..<24).map { "\($0)" }))
    }

    /// A retired index starts no merge: the writes that would call for one apply, unmerged.
    @Test func aRetiredIndexStartsNoMerge() async {
        let gate = Gate()
        let index = Self.index(heldAt: gate)
        index.retire()
        await offThePool {
            index.apply((0..<8).map { .upsert(F.product("\($0)", title: "Widget \($0)")) })
            index.apply((8..<16).map { .upsert(F.product("\($0)", title: "Widget \($0)")) })
            index.waitForMerges()
        }
        #expect(gate.builds.withLock { $0 } == 0)
        #expect(index.segmentCount == 2)
        #expect(index.count == 16)
    }
}
