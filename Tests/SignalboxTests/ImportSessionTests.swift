import Base
import Foundation
import Search
import Testing

@testable import Signalbox

/// The import's pipeline (``ImportSession``): a batch is stored while the batch before it is
/// applied and the next is indexed ahead, batches are stored and applied in order, each applied
/// as one write, and the store never runs more than two batches ahead of the index. Driven with recording closures in place
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
            format: .ndjson, schema: schema, limits: .default, batchSize: batchSize,
            store: { documents, _ in
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
                return WriteTally.Counts(created: changes.count)
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
        #expect(Array(steps.prefix(3)) == ["store 1", "apply 1 of 2", "store 2"])
        #expect(steps.firstIndex(of: "store 2")! < steps.firstIndex(of: "applied 1")!)
        #expect(steps.filter { $0.hasPrefix("apply ") } == ["apply 1 of 2", "apply 2 of 2", "apply 3 of 1"])
        #expect(steps.count == 9)
    }

    /// Without waits in the applier: still in order, each batch applied whole, and a batch is
    /// stored only once the one three before it is applied (at most
    /// ``ImportSession/maxBatchesInFlight``, two, on their way while the next is parsed).
    @Test func batchesGoInOrderAndTheStoreStaysAtMostTwoBatchesAhead() async throws {
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
            if batch > 3 { #expect(position("applied \(batch - 3)") < position("store \(batch)")) }
        }
    }

    /// A batch is indexed ahead as soon as it is parsed, while the batch before it is still
    /// being stored: batch 1's commit goes on until batch 2 is prepared (without the overlap it
    /// would wait forever: the suite's time limit fails it), and each batch's store gets what
    /// was prepared of it.
    @Test func aBatchIsPreparedWhileTheOneBeforeIsStored() async throws {
        let trace = Trace()
        let index = CollectionIndex(schema: Self.schema)
        let session = ImportSession(
            format: .ndjson, schema: Self.schema, limits: .default, batchSize: 2,
            prepare: { documents in
                await trace.record("prepare \(documents[0].id)")
                return index.prepare(documents)
            },
            store: { documents, prepared in
                await trace.record("store \(documents[0].id)")
                if documents[0].id == "s1" { await trace.reach("prepare s3") }
                #expect(prepared?.count == documents.count)
                let first = await trace.number(documents.count)
                return documents.enumerated().map { offset, document in
                    ChangeApplier.Change(
                        sequence: first + Int64(offset), collection: "shop", id: document.id, record: document, body: Data(document.body))
                }
            },
            apply: { changes in WriteTally.Counts(created: changes.count) })
        try await session.feed(Self.lines(5))
        let report = try await session.finish()
        #expect(report.created == 5 && report.lastSequence == 5)
        let steps = await trace.steps
        let position = { (step: String) in steps.firstIndex(of: step) ?? -1 }
        #expect(position("prepare s3") < position("store s3") && position("store s1") < position("store s3"))
    }

    /// A batch whose index write fails (a timeout) fails the import, but the batch stored
    /// meanwhile is applied all the same: a stored change never offered would stop this
    /// replica's applier at its number.
    @Test func aBatchStoredAfterAFailedApplyIsStillApplied() async throws {
        struct TimedOut: Error {}
        let trace = Trace()
        let session = ImportSession(
            format: .ndjson, schema: Self.schema, limits: .default, batchSize: 2,
            store: { documents, _ in
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
                return WriteTally.Counts(created: changes.count)
            })
        await #expect(throws: TimedOut.self) {
            try await session.feed(Self.lines(4))
            _ = try await session.finish()
        }
        await trace.reach("apply 3")
    }

    /// The report adds up what each batch's apply counted (the index write's look-up of each
    /// id, ``WriteTally``), batch by batch, and asks nothing else: here the applier calls an id
    /// starting with "u" updated. Every batch counts once it is applied.
    @Test func theCountsAreWhatEachBatchsApplyCounted() async throws {
        let head = Locked<Int64>(0), applied = Locked<[[String]]>([])
        let session = ImportSession(
            format: .ndjson, schema: Self.schema, limits: .default, batchSize: 2,
            store: { documents, _ in
                let first = head.withLock { head in
                    defer { head += Int64(documents.count) }
                    return head + 1
                }
                return documents.enumerated().map { offset, document in
                    ChangeApplier.Change(
                        sequence: first + Int64(offset), collection: "shop", id: document.id, record: document, body: Data(document.body))
                }
            },
            apply: { changes in
                applied.withLock { $0.append(changes.map(\.id)) }
                let updated = changes.filter { $0.id.hasPrefix("u") }.count
                return WriteTally.Counts(created: changes.count - updated, updated: updated)
            })
        let lines = ["s1", "u2", "u3", "s4", "u5"].map { #"{"sku": "\#($0)", "title": "x"}"# }.joined(separator: "\n")
        try await session.feed(Array(lines.utf8))
        let report = try await session.finish()
        #expect(report.created == 2 && report.updated == 3 && report.failed == 0)
        #expect(report.lastSequence == 5)
        #expect(applied.withLock { $0 } == [["s1", "u2"], ["u3", "s4"], ["u5"]])
    }

    /// A batch that fails to store fails the import; the batches after it are never stored.
    @Test func aFailedStoreFailsTheImport() async throws {
        struct Full: Error {}
        let stored = Locked(0)
        let session = ImportSession(
            format: .ndjson, schema: Self.schema, limits: .default, batchSize: 2,
            store: { _, _ in
                let batch = stored.withLock { $0 += 1; return $0 }
                if batch == 2 { throw Full() }
                return []
            },
            apply: { _ in WriteTally.Counts() })
        await #expect(throws: Full.self) {
            try await session.feed(Self.lines(9))
            _ = try await session.finish()
        }
        #expect(stored.withLock { $0 } == 2)
    }
}
