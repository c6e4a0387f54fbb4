import Base
import Foundation
import Testing

@testable import Search

/// An id look-up (`IdTable`, `CollectionSnapshot.locate`, one id or a batch) answers as a
/// dictionary does: present, absent, deleted, replaced, across segments and their merges, and
/// after a restart (the slots' tags are derived again when a segment file is read).
@Suite struct IdLookupTests {
    private typealias F = CollectionFixtures

    /// Ids of every kind a table meets: short (inline strings) and long, ASCII and not, sharing
    /// prefixes, the empty id.
    private static func randomId(_ random: inout SplitMix64) -> String {
        switch random.next() % 6 {
        case 0: return String(random.next() % 100_000)
        case 1: return "usr_share_doc_package-\(random.next() % 50_000)_changelog.Debian.gz"
        case 2: return "é\(random.next() % 5_000)ü"
        case 3: return random.next() % 50 == 0 ? "" : "x\(random.next() % 1_000)"
        case 4: return String(repeating: "ab", count: Int(random.next() % 12)) + "\(random.next() % 300)"
        default: return "id-\(random.next() % 20_000)"
        }
    }

    /// A document's id among 400 of three kinds (short, long, not ASCII): a batch of 40 often
    /// names one twice.
    private static func documentId(_ random: inout SplitMix64) -> String {
        let n = random.next() % 400
        switch n % 3 {
        case 0: return String(n)
        case 1: return "usr_share_doc_package-\(n)_changelog.Debian.gz"
        default: return "é\(n)ü"
        }
    }

    @Test(arguments: [0, 1, 15, 16, 17, 1_000, 20_000])
    func aTableFindsItsIdsAndNoOther(count: Int) throws {
        var random = SplitMix64(seed: UInt64(count) &+ 7)
        var unique = Set<String>()
        while unique.count < count { unique.insert(Self.randomId(&random)) }
        let ids = Array(unique)
        let table = IdTable(ids)
        let numbers = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, UInt32($0)) })
        for id in ids { #expect(table.number(of: id, in: ids) == numbers[id]) }
        var absent = 0
        while absent < 2 * count + 100 {
            let id = Self.randomId(&random)
            if numbers[id] != nil { continue }
            #expect(table.number(of: id, in: ids) == nil, "\(id)")
            absent += 1
        }
        // As a segment file keeps it (numbers only), its tags derived again: the same table.
        #expect(table.persistedSlots.allSatisfy { $0 <= UInt32(count) })
        var bytes: [UInt8] = []
        var ends: [UInt32] = []
        for id in ids {
            bytes += id.utf8
            ends.append(UInt32(bytes.count))
        }
        let read = try bytes.withUnsafeBufferPointer { try IdTable(persisted: table.persistedSlots, ids: $0, ends: ends) }
        #expect(read.slots == table.slots)
    }

    @Test func persistedSlotsThatMissAnIdAreRefused() {
        let ids = (0..<100).map { "id \($0)" }
        var bytes: [UInt8] = []
        var ends: [UInt32] = []
        for id in ids {
            bytes += id.utf8
            ends.append(UInt32(bytes.count))
        }
        var slots = IdTable(ids).persistedSlots
        let victim = slots.firstIndex { $0 != 0 }!
        let number = Int(slots[victim]) - 1
        slots[victim] = 0
        #expect(throws: IdTable.SlotsError.idNotFound(number: number)) {
            try bytes.withUnsafeBufferPointer { try IdTable(persisted: slots, ids: $0, ends: ends) }
        }
        #expect(throws: IdTable.SlotsError.notAPowerOfTwo) {
            try bytes.withUnsafeBufferPointer { try IdTable(persisted: Array(slots.dropLast()), ids: $0, ends: ends) }
        }
        // Another table of the same ids (numbered otherwise): its slots lead nowhere right.
        #expect(throws: IdTable.SlotsError.self) {
            try bytes.withUnsafeBufferPointer { try IdTable(persisted: IdTable(ids.reversed()).persistedSlots, ids: $0, ends: ends) }
        }
    }

    /// Random batches of upserts and deletes (ids repeated within a batch too) into an index
    /// that cuts them into many small segments and merges them: after each batch, every id ever
    /// written and some never written are looked up one at a time and as a batch, and compared
    /// with a dictionary; so are the previous documents each change reports.
    @Test(arguments: [1, 2, 3])
    func lookUpsAnswerAsADictionary(seed: UInt64) async throws {
        let directory = NSTemporaryDirectory() + "signalbox-idlookup-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 16
        configuration.mergeFanIn = 3
        let merges = Locked(0)
        var index = CollectionIndex(
            schema: F.products, documents: [], sequence: 0, configuration: configuration, mergeBuilt: { merges.withLock { $0 += 1 } })
        var model: [String: String] = [:]
        var random = SplitMix64(seed: seed)
        var written = Set<String>()
        var parts = 0
        for round in 0..<60 {
            // Lets the other tests run between rounds: three seeds of this, held on Swift's two
            // shared task threads for minutes under ThreadSanitizer, starved the server tests
            // beside them past their time limits.
            await Task.yield()
            var batch: [CollectionChange] = []
            var expectedPrevious: [String?] = []
            var batchModel = model
            for _ in 0..<Int(random.next() % 40) + 1 {
                let id = Self.documentId(&random)
                written.insert(id)
                expectedPrevious.append(batchModel[id])
                if random.next() % 4 == 0 {
                    batch.append(.delete(id: id))
                    batchModel[id] = nil
                } else {
                    let title = "t\(random.next() % 1_000_000)"
                    batch.append(.upsert(try F.decode(#"{"sku":"\#(id)","title":"\#(title)"}"#)))
                    batchModel[id] = title
                }
            }
            parts = max(parts, index.segmentCount)
            let outcomes = index.apply(batch, through: Int64(round + 1))
            #expect(outcomes.map { $0.previous.flatMap { Self.title($0) } } == expectedPrevious, "round \(round)")
            model = batchModel
            if round % 20 == 19 {
                // After a restart: every table read back from its file, its tags derived again.
                index.waitForMerges()
                try index.save(to: directory, epoch: "e")
                (index, _) = try CollectionIndex.restore(from: directory, configuration: configuration)
            }
            var asked = Array(written)
            for _ in 0..<50 { asked.append(Self.randomId(&random)) }
            asked.shuffle(using: &random)
            let snapshot = index.snapshot
            let located = snapshot.locate(asked)
            for (offset, id) in asked.enumerated() {
                let present = model[id] != nil
                #expect((located[offset] != nil) == present, "round \(round): \(id)")
                #expect(index.contains(id: id) == present, "round \(round): \(id)")
                let one = snapshot.locate(id)
                #expect(one?.part == located[offset]?.part && one?.document == located[offset]?.document, "round \(round): \(id)")
                #expect(index.document(id: id).flatMap { Self.title($0) } == model[id], "round \(round): \(id)")
            }
        }
        index.waitForMerges()
        #expect(merges.withLock { $0 } > 0)
        #expect(parts > 2)
        #expect(index.count == model.count)
    }

    private static func title(_ document: CollectionDocument) -> String? {
        guard case .string(let title)? = document.values[0] else { return nil }
        return title
    }
}
