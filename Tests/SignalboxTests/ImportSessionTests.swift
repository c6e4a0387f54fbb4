import Base
import Foundation
import Search
import Testing

@testable import Signalbox

/// The import's pipeline (``ImportSession``): a batch is stored while the batch before it is
/// applied, batches are stored and applied in order, each applied as one write, and the store
/// never runs more than one batch ahead of the index. Driven with recording closures in place
/// of the store and the applier.
@Suite(.timeLimit(.minutes(1)))
struct ImportSessionTests {
    private static let schema = CollectionSchema(idField: "sku", fields: [FieldSchema(name: "title", type: .string, search: true)])

    /// What the closures saw, in order.
    private actor Trace {
        private(set) var steps: [String] = []
        private var head: Int64 = 0
        private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

        func record(_ step: String) {
            steps.append(step)
            for continuation in waiting.removeValue(forKey: step) ?? [] { continuation.resume() }
        }

        /// Returns once `step` is recorded.
        func reach(_ step: String) async {
            if steps.contains(step) { return }
            await withCheckedContinuation { waiting[step, default: []].append($0) }
        }

        func number(_ count: Int) -> Int64 {
            defer { head += Int64(count) }
            return head + 1
        }
    }

    private static func lines(_ count: Int) -> [UInt8] {
        Array((1...count).map { #"{"sku": "s\#($0)", "title": "Item \#($0)"}"# }.joined(separator: "\n").utf8)
    }

    private static func session(batchSize: Int, trace: Trace, applying: @escaping @Sendable (Int) async -> Void = { _ in }) -> ImportSession {
        let batches = Locked(0)
        return ImportSession(
            format: .ndjson, schema: schema, limits: .default, batchSize: batchSize, exists: { ids in ids.map { _ in false } },
            store: { documents in
                let batch = batches.withLock { $0 += 1; return $0 }
                await trace.record("store \(batch)")
                let first = await trace.number(documents.count)
                return documents.enumerated().map { offset, document in
                    ChangeApplier.Change(
                        sequence: first + Int64(offset), collection: "shop", id: document.id, record: document, body: Data(document.body))
                }
            },
            apply: { changes in
                let batch = Int((changes[0].sequence - 1) / Int64(batchSize)) + 1
                await trace.record("apply \(batch) of \(changes.count)")
                await applying(batch)
                await trace.record("applied \(batch)")
            })
    }

    /// Batch 1's index write goes on until batch 2 is stored: without the overlap it would wait
    /// forever (the suite's time limit fails it).
    @Test func theNextBatchIsStoredWhileOneIsApplied() async throws {
        let trace = Trace()
        let session = Self.session(batchSize: 2, trace: trace) { batch in
            if batch == 1 { await trace.reach("store 2") }
        }
        try await session.feed(Self.lines(5))
        let report = try await session.finish()
        #expect(report.created == 5 && report.updated == 0 && report.failed == 0)
        #expect(report.lastSequence == 5)
        let steps = await trace.steps
        #expect(Array(steps.prefix(4)) == ["store 1", "apply 1 of 2", "store 2", "applied 1"])
        #expect(steps.filter { $0.hasPrefix("apply ") } == ["apply 1 of 2", "apply 2 of 2", "apply 3 of 1"])
        #expect(steps.count == 9)
    }

    /// Without waits in the applier: still in order, each batch applied whole, and a batch is
    /// stored only once the one two before it is applied (at most two batches in flight).
    @Test func batchesGoInOrderAndTheStoreStaysOneBatchAhead() async throws {
        let trace = Trace()
        let session = Self.session(batchSize: 3, trace: trace)
        for line in Self.lines(20).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            try await session.feed(Array(line) + [UInt8(ascii: "\n")])
        }
        let report = try await session.finish()
        #expect(report.created == 20 && report.lastSequence == 20)
        let steps = await trace.steps
        let stores = steps.filter { $0.hasPrefix("store ") }, applies = steps.filter { $0.hasPrefix("apply ") }
        #expect(stores == (1...7).map { "store \($0)" })
        #expect(applies == (1...6).map { "apply \($0) of 3" } + ["apply 7 of 2"])
        for batch in 1...7 {
            let position = { (step: String) in steps.firstIndex(of: step) ?? -1 }
            #expect(position("store \(batch)") < position("apply \(batch) of \(batch == 7 ? 2 : 3)"))
            if batch > 1 { #expect(position("applied \(batch - 1)") < position("apply \(batch) of \(batch == 7 ? 2 : 3)")) }
            if batch > 2 { #expect(position("applied \(batch - 2)") < position("store \(batch)")) }
        }
    }

    /// A batch whose index write fails (a timeout) fails the import, but the batch stored
    /// meanwhile is applied all the same: a stored change never offered would stop this
    /// replica's applier at its number.
    @Test func aBatchStoredAfterAFailedApplyIsStillApplied() async throws {
        struct TimedOut: Error {}
        let trace = Trace()
        let session = ImportSession(
            format: .ndjson, schema: Self.schema, limits: .default, batchSize: 2, exists: { ids in ids.map { _ in false } },
            store: { documents in
                let first = await trace.number(documents.count)
                await trace.record("store \(first)")
                return documents.enumerated().map { offset, document in
                    ChangeApplier.Change(
                        sequence: first + Int64(offset), collection: "shop", id: document.id, record: document, body: Data(document.body))
                }
            },
            apply: { changes in
                await trace.record("apply \(changes[0].sequence)")
                if changes[0].sequence == 1 {
                    await trace.reach("store 3")
                    throw TimedOut()
                }
            })
        await #expect(throws: TimedOut.self) {
            try await session.feed(Self.lines(4))
            _ = try await session.finish()
        }
        await trace.reach("apply 3")
    }

    /// Created or updated: an id the index holds (asked once a batch), or one written earlier in
    /// the same batch, is updated. The index here holds "s2" and every id applied so far.
    @Test func storedAndRepeatedIdsCountAsUpdated() async throws {
        let asked = Locked<[[String]]>([]), indexed = Locked<Set<String>>(["s2"]), head = Locked<Int64>(0)
        let session = ImportSession(
            format: .ndjson, schema: Self.schema, limits: .default, batchSize: 2,
            exists: { ids in
                asked.withLock { $0.append(ids) }
                return indexed.withLock { indexed in ids.map(indexed.contains) }
            },
            store: { documents in
                let first = head.withLock { head in
                    defer { head += Int64(documents.count) }
                    return head + 1
                }
                return documents.enumerated().map { offset, document in
                    ChangeApplier.Change(
                        sequence: first + Int64(offset), collection: "shop", id: document.id, record: document, body: Data(document.body))
                }
            },
            apply: { changes in indexed.withLock { $0.formUnion(changes.map(\.id)) } })
        let more = #"{"sku": "s1", "title": "Again"}"# + "\n" + #"{"sku": "s5", "title": "x"}"# + "\n" + #"{"sku": "s5", "title": "y"}"#
        try await session.feed(Self.lines(4) + Array(("\n" + more).utf8))
        let report = try await session.finish()
        // s1 s2 | s3 s4 | s1 s5 | s5: s2 indexed already, s1 applied with the first batch, s5 twice.
        #expect(report.created == 4 && report.updated == 3 && report.failed == 0)
        #expect(report.lastSequence == 7)
        #expect(asked.withLock { $0 } == [["s1", "s2"], ["s3", "s4"], ["s1", "s5"], ["s5"]])
    }

    /// A batch that fails to store fails the import; the batches after it are never stored.
    @Test func aFailedStoreFailsTheImport() async throws {
        struct Full: Error {}
        let stored = Locked(0)
        let session = ImportSession(
            format: .ndjson, schema: Self.schema, limits: .default, batchSize: 2, exists: { ids in ids.map { _ in false } },
            store: { _ in
                let batch = stored.withLock { $0 += 1; return $0 }
                if batch == 2 { throw Full() }
                return []
            },
            apply: { _ in })
        await #expect(throws: Full.self) {
            try await session.feed(Self.lines(9))
            _ = try await session.finish()
        }
        #expect(stored.withLock { $0 } == 2)
    }
}
