import Base
import Dispatch
import Foundation
import Search
import Testing
@testable import Signalbox

/// A schema change's rebuild runs on a thread of its own (not on the pool Swift's tasks, and so
/// every write's answer, run on) and replays the writes made meanwhile in steps outside the
/// collection's lock: it never holds writes or searches (issue 25: one write waited 30 s).
@Suite struct ServedCollectionRebuildTests {
    static let before = #"{"id": "id", "fields": [{"name": "title", "type": "string", "search": true}]}"#
    static let after = #"{"id": "id", "fields": [{"name": "title", "type": "string", "search": true}, {"name": "arch", "type": "string"}]}"#

    static func schema(_ json: String) throws -> CollectionSchema {
        try CollectionSchema.decode(json: Array(json.utf8))
    }

    static func upsert(_ n: Int, schema: CollectionSchema) throws -> CollectionChange {
        .upsert(try CollectionDocumentDecoder(schema: schema).decode(Array(#"{"id": "w\#(n)", "title": "write \#(n)", "arch": "amd64"}"#.utf8)))
    }

    /// Where the rebuild is held: each call waits for the test's go-ahead.
    final class Gate: Sendable {
        let reached = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = Locked<[Bool]>([])
        /// Whether each step ran on a rebuild's own thread.
        let onRebuildThread = Locked<Set<Bool>>([])

        func step(swapped: Bool) {
            calls.withLock { $0.append(swapped) }
            _ = onRebuildThread.withLock { $0.insert(ServedCollection.isRebuildThread) }
            reached.signal()
            proceed.wait()
        }
    }

    /// Runs blocking `work` on a new thread (it waits on the gate), keeping the cooperative pool free.
    static func offThePool(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    @Test func writesAndSearchesGoOnWhileTheJournalIsReplayed() async throws {
        let old = try Self.schema(Self.before), new = try Self.schema(Self.after)
        let gate = Gate()
        let collection = ServedCollection(
            name: "things", schema: old, index: CollectionIndex(schema: old), replayStep: { gate.step(swapped: $0) })
        collection.rebuild(under: new)
        let journaled = ServedCollection.maxChangesReplayedUnderLock + 50
        try await Self.offThePool {
            gate.reached.wait()  // the new index is built; nothing replayed yet
            collection.apply(try (0..<journaled).map { try Self.upsert($0, schema: new) })
            gate.proceed.signal()
            // The first step replayed more than the lock takes, outside it: the rebuild is held
            // before its next step, and writes and searches are answered meanwhile.
            gate.reached.wait()
            #expect(collection.isRebuilding)
            collection.apply([try Self.upsert(journaled, schema: new)])
            #expect(collection.index.document(id: "w\(journaled)") != nil)
            #expect(collection.index.search(CollectionQuery(text: "write")).total == journaled + 1)
            gate.proceed.signal()
            gate.reached.wait()  // swapped
            gate.proceed.signal()
        }
        #expect(gate.calls.withLock { $0 } == [false, false, true])
        #expect(!collection.isRebuilding)
        #expect(collection.index.schema == new)
        #expect(collection.index.count == journaled + 1)
        // Off the pool Swift's tasks (every write's answer) run on: a rebuild there held it.
        #expect(gate.onRebuildThread.withLock { $0 } == [true])
    }

    /// During a rebuild every change gets what it replaced as this replica holds it, also where a
    /// document does not fit the old index: an earlier change's of the batch, a write the old index
    /// could not hold (an earlier batch's), or the old index's. Before, such a batch reported fewer
    /// outcomes than changes (gap 1; `RebuildEventsTests` shows it through `/events`).
    @Test func everyChangeDuringARebuildGetsWhatItReplaced() async throws {
        let old = try Self.schema(#"{"id": "id", "fields": [{"name": "title", "type": "string"}, {"name": "size", "type": "string"}]}"#)
        let new = try Self.schema(#"{"id": "id", "fields": [{"name": "title", "type": "string"}, {"name": "size", "type": "number"}]}"#)
        let decoder = CollectionDocumentDecoder(schema: new)
        @Sendable func upsert(_ json: String) throws -> CollectionChange { .upsert(try decoder.decode(Array(json.utf8))) }
        let gate = Gate()
        let collection = ServedCollection(
            name: "things", schema: old, index: CollectionIndex(schema: old, documents: [try CollectionDocumentDecoder(schema: old).decode(Array(#"{"id": "a", "title": "a0"}"#.utf8))]),
            replayStep: { gate.step(swapped: $0) })
        collection.rebuild(under: new, at: 1)
        @Sendable func titles(_ outcomes: [CollectionChangeOutcome]) -> [String?] {
            outcomes.map { outcome in
                guard case .string(let title)? = outcome.previous?.values[0] else { return nil }
                return title
            }
        }
        try await Self.offThePool {
            gate.reached.wait()  // the new index is built; the old one serves
            // `"size": 1` fits the new schema only.
            let first = collection.apply(
                [try upsert(#"{"id": "a", "title": "a1", "size": 1}"#), try upsert(#"{"id": "a", "title": "a2"}"#),
                 try upsert(#"{"id": "b", "title": "b1", "size": 2}"#)], through: 4)
            #expect(titles(first) == ["a0", "a1", nil])
            let second = collection.apply([try upsert(#"{"id": "b", "title": "b2"}"#), .delete(id: "a")], through: 6)
            #expect(titles(second) == ["b1", "a2"])
            gate.proceed.signal()
            gate.reached.wait()  // swapped
            gate.proceed.signal()
        }
        #expect(collection.index.document(id: "b")?.values[0] == .string("b2"))
        #expect(collection.index.document(id: "a") == nil)
    }

    /// The index a rebuild replaces is retired once the new one serves (its merges stop); the
    /// new one is not.
    @Test func theReplacedIndexIsRetired() async throws {
        let old = try Self.schema(Self.before), new = try Self.schema(Self.after)
        let gate = Gate()
        let collection = ServedCollection(
            name: "things", schema: old, index: CollectionIndex(schema: old), replayStep: { gate.step(swapped: $0) })
        let replaced = collection.index
        collection.rebuild(under: new)
        try await Self.offThePool {
            gate.reached.wait()  // built; nothing replayed yet
            #expect(!replaced.isRetired)
            gate.proceed.signal()
            gate.reached.wait()  // swapped
            gate.proceed.signal()
        }
        #expect(gate.calls.withLock { $0 } == [false, true])
        #expect(replaced.isRetired)
        #expect(collection.index !== replaced)
        #expect(!collection.index.isRetired)
    }

    /// A deleted collection's index is retired; one made again under the name is new and not.
    @Test func aDeletedCollectionsIndexIsRetired() throws {
        let schema = try Self.schema(Self.before)
        let catalog = CollectionCatalog()
        catalog.put("things", schema: schema)
        let index = try #require(catalog.named("things")).index
        #expect(!index.isRetired)
        catalog.remove("things")
        #expect(index.isRetired)
        catalog.put("things", schema: schema)
        #expect(try #require(catalog.named("things")).index.isRetired == false)
    }
}
