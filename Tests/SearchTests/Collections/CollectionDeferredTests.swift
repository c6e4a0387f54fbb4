import Base
import Foundation
import Testing

@testable import Search

/// Writes handed over with `applyDeferred` are held and applied as one run before the next read:
/// a read never misses a write handed over before it began, the held changes keep their order
/// with the writes applied at once, and an index fed by runs (held or not) answers exactly as one
/// built from its documents at once.
@Suite struct CollectionDeferredTests {
    private typealias F = CollectionFixtures

    private static func configuration(maxDeferred: Int = 256) -> CollectionIndex.Configuration {
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 8
        configuration.mergeFanIn = 2
        configuration.maxDeferredChanges = maxDeferred
        return configuration
    }

    @Test func heldWritesAreAppliedAsOneRunAtTheNextRead() {
        let index = CollectionIndex(schema: F.products, configuration: Self.configuration())
        for i in 0..<10 { index.applyDeferred([.upsert(F.product("\(i)", title: "Lamp \(i)", price: Double(i)))], through: Int64(i + 1)) }
        // Nothing applied yet: held, the published snapshot as it was.
        #expect(index.heldChanges == 10)
        #expect(index.published.revision == 0 && index.published.count == 0)
        // Any read applies them first, all in one write.
        #expect(index.search(CollectionQuery(text: "lamp")).total == 10)
        #expect(index.heldChanges == 0)
        #expect(index.revision == 1 && index.version == 1 && index.sequence == 10)
        #expect(index.segmentCount == 1)
    }

    @Test(arguments: ["count", "document", "contains", "sequence", "version", "allDocuments"])
    func everyReadSeesTheWritesHandedOverBeforeIt(read: String) {
        let index = CollectionIndex(schema: F.products, documents: [F.product("old", title: "Old", price: 1)], configuration: Self.configuration())
        index.applyDeferred([.upsert(F.product("new", title: "New", price: 2)), .delete(id: "old")], through: 5)
        switch read {
        case "count": #expect(index.count == 1)
        case "document": #expect(index.document(id: "new")?.values[0] == .string("New"))
        case "contains": #expect(index.contains(id: "new") && !index.contains(id: "old"))
        case "sequence": #expect(index.sequence == 5)
        case "version": #expect(index.version == 1)
        default: #expect(index.allDocuments().map(\.id) == ["new"])
        }
        #expect(index.heldChanges == 0)
    }

    /// The quiet check's mark moves with every write, held or applied, and reading it applies nothing.
    @Test func theWriteMarkMovesWithHeldWritesWithoutApplyingThem() {
        let index = CollectionIndex(schema: F.products, configuration: Self.configuration())
        let before = index.writeMark
        index.applyDeferred([.upsert(F.product("a", title: "Lamp", price: 1))], through: 1)
        let held = index.writeMark
        #expect(held != before)
        #expect(index.heldChanges == 1 && index.published.revision == 0)  // the mark applied nothing
        #expect(index.writeMark == held)  // nothing new: the same mark
        index.applyDeferred([.upsert(F.product("b", title: "Desk", price: 2))], through: 2)
        let twice = index.writeMark
        #expect(twice != held && index.heldChanges == 2)
        #expect(index.count == 2)  // a read applies them: the mark moves once more (the revision)
        let read = index.writeMark
        #expect(read != twice)
        index.apply([.upsert(F.product("c", title: "Chair", price: 3))], through: 3)  // applied at once
        #expect(index.writeMark != read && index.heldChanges == 0)
    }

    @Test func heldWritesApplyOnceTheLimitIsReached() {
        let index = CollectionIndex(schema: F.products, configuration: Self.configuration(maxDeferred: 4))
        for i in 0..<3 { index.applyDeferred([.upsert(F.product("\(i)", title: "Lamp", price: Double(i)))]) }
        #expect(index.heldChanges == 3 && index.published.count == 0)
        index.applyDeferred([.upsert(F.product("3", title: "Lamp", price: 3))])
        #expect(index.heldChanges == 0 && index.published.count == 4 && index.published.revision == 1)
    }

    /// A write applied at once after held ones comes after them: its outcome's previous version
    /// is the held change's document, and the held changes report nothing of their own.
    @Test func aWriteAppliedAtOnceComesAfterTheHeldOnes() {
        let index = CollectionIndex(schema: F.products, documents: [F.product("1", title: "First", price: 1)], configuration: Self.configuration())
        index.applyDeferred([.upsert(F.product("1", title: "Second", price: 1)), .upsert(F.product("2", title: "Other", price: 2))], through: 3)
        let outcomes = index.apply([.upsert(F.product("1", title: "Third", price: 1))], through: 4)
        #expect(outcomes.count == 1 && outcomes[0].previous?.values[0] == .string("Second"))
        #expect(index.document(id: "1")?.values[0] == .string("Third"))
        #expect(index.count == 2 && index.sequence == 4 && index.version == 1)
    }

    /// With a prepared batch the held changes are applied first, as a run of their own.
    @Test func heldWritesComeBeforeAPreparedBatch() {
        let index = CollectionIndex(schema: F.products, configuration: Self.configuration())
        index.applyDeferred([.upsert(F.product("1", title: "Held", price: 1))], through: 1)
        let batch = [F.product("1", title: "Batch", price: 1), F.product("2", title: "Batch", price: 2)]
        let prepared = index.prepare(batch)
        let outcomes = index.apply(batch.map { .upsert($0) }, through: 3, prepared: prepared)
        #expect(outcomes.map { $0.previous?.values[0] } == [.string("Held"), nil])
        #expect(index.serves(prepared))
        #expect(index.search(CollectionQuery(text: "batch")).total == 2 && index.search(CollectionQuery(text: "held")).total == 0)
        #expect(index.sequence == 3)
    }

    @Test func catchingUpCanReportThePreviousVersions() {
        let index = CollectionIndex(
            schema: F.products, documents: [F.product("1", title: "First", price: 1), F.product("2", title: "Gone", price: 2)],
            configuration: Self.configuration())
        index.applyDeferred([.upsert(F.product("1", title: "Second", price: 1)), .delete(id: "2"), .upsert(F.product("3", title: "New"))])
        let outcomes = index.catchUp(reportingPrevious: true)
        #expect(outcomes.map { $0.previous?.values[0] } == [.string("First"), .string("Gone"), nil])
        #expect(outcomes.map(\.change.id) == ["1", "2", "3"])
        #expect(index.catchUp(reportingPrevious: true).isEmpty)
    }

    /// Randomized upserts (new ids and replacements), deletes and reads; after each step an index
    /// fed by runs applied at once, and one fed by held runs, answer every query (text, filters,
    /// facets with stats, sorts, pages) exactly as an index built at once from the live documents.
    @Test(arguments: [1, 2, 3])
    func anIndexFedByRunsAnswersAsOneBuiltAtOnce(seed: UInt64) async {
        let failures = await offThePool { Self.fedByRunsFailures(seed: seed) }
        #expect(failures.isEmpty, "\(failures.count) failures, first \(failures.prefix(3))")
    }

    /// What `anIndexFedByRunsAnswersAsOneBuiltAtOnce` finds wrong with `seed`'s runs.
    private static func fedByRunsFailures(seed: UInt64) -> [String] {
        var failures: [String] = []
        var random = SplitMix64(seed: seed)
        let direct = CollectionIndex(schema: F.products, configuration: Self.configuration())
        let held = CollectionIndex(schema: F.products, configuration: Self.configuration(maxDeferred: 12))
        var live: [String: CollectionDocument] = [:]
        let words = ["lamp", "chair", "table", "desk", "shelf", "sofa"]
        let brands = ["acme", "zeta", "orbit", "nova"]
        var nextId = 0
        for step in 0..<120 {
            var changes: [CollectionChange] = []
            for _ in 0..<(1 + random.below(5)) {
                let roll = random.below(10)
                if roll < 2, let victim = live.keys.sorted().dropFirst(random.below(max(live.count, 1))).first {
                    changes.append(.delete(id: victim))
                    live[victim] = nil
                } else {
                    let id = roll < 5 && !live.isEmpty ? live.keys.sorted()[random.below(live.count)] : "p\(nextId)"
                    if id == "p\(nextId)" { nextId += 1 }
                    let document = F.product(
                        id, title: "\(words[random.below(words.count)]) \(words[random.below(words.count)]) \(step)",
                        tags: random.below(3) == 0 ? nil : [words[random.below(words.count)], "t\(random.below(4))"],
                        brand: random.below(5) == 0 ? nil : brands[random.below(brands.count)],
                        price: random.below(6) == 0 ? nil : Double(random.below(50)), inStock: random.below(2) == 0,
                        store: random.below(4) == 0 ? nil : (Double(random.below(60)) - 30, Double(random.below(120)) - 60))
                    changes.append(.upsert(document))
                    live[id] = document
                }
            }
            direct.apply(changes, through: Int64(step + 1))
            held.applyDeferred(changes, through: Int64(step + 1))
            // Reads now and then: the held index catches up at various points of its runs.
            guard random.below(3) == 0 || step == 119 else { continue }
            let scratch = CollectionIndex(schema: F.products, documents: Array(live.values))
            for query in Self.queries(words: words, brands: brands) {
                let expected = scratch.search(query)
                if direct.search(query) != expected { failures.append("direct, step \(step), \(query)") }
                if held.search(query) != expected { failures.append("held, step \(step), \(query)") }
            }
            if !(held.count == live.count && direct.count == live.count && held.sequence == Int64(step + 1)) {
                failures.append("counts, step \(step)")
            }
        }
        return failures
    }

    private static func queries(words: [String], brands: [String]) -> [CollectionQuery] {
        let facets = ["brand", "tags", "price", "inStock"]
        return [
            CollectionQuery(facets: facets, limit: 1_000),
            CollectionQuery(text: words[0], facets: facets, limit: 50),
            CollectionQuery(text: "\(words[1]) \(words[2])", limit: 20),
            CollectionQuery(text: "sh", facets: ["brand"], limit: 20),
            CollectionQuery(filter: .compare(field: "brand", .equal, .string(brands[0])), sort: [.field("price", descending: false)], limit: 1_000),
            CollectionQuery(
                text: words[3], filter: .or([.between(field: "price", .number(10), .number(30)), .compare(field: "inStock", .equal, .boolean(true))]),
                facets: facets, limit: 30),
            CollectionQuery(filter: .not(.exists(field: "brand")), sort: [.field("title", descending: true)], facets: ["tags"], limit: 100),
            CollectionQuery(filter: .geoRadius(center: GeoPoint(latitude: 0, longitude: 0), meters: 2_500_000), sort: [
                .distance(from: GeoPoint(latitude: 0, longitude: 0), descending: false)
            ], limit: 100),
            CollectionQuery(sort: [.field("brand", descending: false), .field("price", descending: true)], limit: 15, offset: 10),
        ]
    }

    /// A reader running beside a writer that hands its writes over finds every write handed over
    /// before its read began.
    @Test func readersFindEveryWriteHandedOverBeforeThem() async {
        let index = CollectionIndex(schema: F.products, configuration: Self.configuration(maxDeferred: 64))
        let handedOver = Locked(0)
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for i in 0..<300 {
                    index.applyDeferred([.upsert(F.product("\(i)", title: "Item \(i)", price: Double(i)))], through: Int64(i + 1))
                    handedOver.withLock { $0 = i + 1 }
                }
                return true
            }
            for reader in 0..<2 {
                group.addTask {
                    var found = true
                    for _ in 0..<150 {
                        let before = handedOver.withLock { $0 }
                        let total = reader == 0 ? index.search(CollectionQuery(text: "item")).total : index.count
                        found = found && total >= before
                    }
                    return found
                }
            }
            for await found in group { #expect(found) }
        }
        #expect(index.count == 300 && index.sequence == 300)
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`.
    fileprivate mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
