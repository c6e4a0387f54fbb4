import Foundation
import Logging
import Search
import Testing

@testable import Signalbox

/// A store's start read with persisted indexes offered (`DocumentStore.snapshot(reusing:)`), on
/// SQLite and on PostgreSQL: a collection whose index fits gets only its rows after the index's
/// sequence; every other row comes whole; an index of another schema, store, or of a collection
/// made again since is not taken.
@Suite(.timeLimit(.minutes(3)))
struct StoreCoverageTests {
    static let schema = #"{"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}]}"#
    static let otherSchema = #"{"id": "sku", "fields": [{"name": "title", "type": "string"}]}"#

    /// Writes to `shop` (created at 1), `books` and the cities; returns the sequence after the first half.
    static func fill(_ store: any DocumentStore) async throws -> Int64 {
        _ = try await store.commit(.putSchema(collection: "shop", schema: Data(schema.utf8)))
        _ = try await store.commit(.putSchema(collection: "books", schema: Data(schema.utf8)))
        _ = try await store.commit(batch: (1...5).map { .upsert(collection: "shop", id: "\($0)", body: Data(#"{"sku":"\#($0)"}"#.utf8)) })
        _ = try await store.commit(.upsert(collection: "books", id: "b1", body: Data(#"{"sku":"b1"}"#.utf8)))
        let middle = try await store.commit(.upsert(id: "c1", body: Data(#"{"id":"c1","name":"City","rank":1}"#.utf8)))
        _ = try await store.commit(.upsert(collection: "shop", id: "2", body: Data(#"{"sku":"2","title":"again"}"#.utf8)))
        _ = try await store.commit(.delete(collection: "shop", id: "3", inBaseData: false))
        _ = try await store.commit(.upsert(collection: "shop", id: "6", body: Data(#"{"sku":"6"}"#.utf8)))
        _ = try await store.commit(.upsert(collection: "books", id: "b2", body: Data(#"{"sku":"b2"}"#.utf8)))
        return middle
    }

    /// An index's coverage, marked as made while `server` answered (``IndexMark``: on PostgreSQL the
    /// server of the read confirms it; SQLite takes any).
    static func coverage(
        _ sequence: Int64, _ epoch: String, schema: String = Self.schema, server: String? = nil, changes: [IndexMark.Change] = []
    ) throws -> IndexCoverage {
        IndexCoverage(
            sequence: sequence, schema: try CollectionSchema.decode(json: Array(schema.utf8)), epoch: epoch,
            mark: IndexMark(sequence: sequence, server: server, changes: changes))
    }

    static func check(_ store: any DocumentStore) async throws {
        let middle = try await fill(store)
        let whole = try await store.snapshot()
        #expect(whole.covered.isEmpty)
        let epoch = whole.epoch
        func coverage(_ sequence: Int64, _ epoch: String, schema: String = Self.schema) throws -> IndexCoverage {
            try Self.coverage(sequence, epoch, schema: schema, server: whole.server)
        }
        let covered = try await store.snapshot(reusing: ["shop": try coverage(middle, epoch)])
        #expect(covered.covered == ["shop": middle])
        // Shop: only its rows after `middle` (the rewrite of 2, the tombstone of 3, 6), oldest first.
        #expect(covered.documents.filter { $0.collection == "shop" }.map(\.id) == ["2", "3", "6"])
        #expect(covered.documents.filter { $0.collection == "shop" }.map { $0.body == nil } == [false, true, false])
        // Everything else whole, and the whole list in sequence order.
        #expect(covered.documents.filter { $0.collection != "shop" } == whole.documents.filter { $0.collection != "shop" })
        #expect(covered.documents.map(\.sequence) == covered.documents.map(\.sequence).sorted())
        #expect(covered.head == whole.head && covered.recentChanges == whole.recentChanges && covered.collections == whole.collections)
        // Not taken: another store, another schema, a sequence past the head.
        for offered in [try coverage(middle, "another-epoch"), try coverage(middle, epoch, schema: otherSchema), try coverage(whole.head + 1, epoch)] {
            let snapshot = try await store.snapshot(reusing: ["shop": offered])
            #expect(snapshot.covered.isEmpty)
            #expect(snapshot.documents == whole.documents)
        }
        // Shop deleted and made again after the index: its schema put is later, so the index is not taken.
        _ = try await store.commit(.dropCollection(collection: "shop"))
        _ = try await store.commit(.putSchema(collection: "shop", schema: Data(schema.utf8)))
        _ = try await store.commit(.upsert(collection: "shop", id: "9", body: Data(#"{"sku":"9"}"#.utf8)))
        let remade = try await store.snapshot(reusing: ["shop": try coverage(middle, epoch)])
        #expect(remade.covered.isEmpty)
        #expect(remade.documents.filter { $0.collection == "shop" }.map(\.id) == ["9"])
    }

    /// On PostgreSQL an index is taken only when its mark names the store's history: the same
    /// server process as when it was marked, or the log holding its newest changes as they were.
    /// A log rewritten under it (what a standby promoted without the last changes, then written
    /// to, holds), a log that no longer reaches its sequence, or no mark at all: not taken.
    @Test(.enabled("PostgreSQL is not installed") { await ScratchPostgres.isAvailable() })
    func postgresTakesAnIndexOnlyWhenTheStoreHoldsTheHistoryItWasMarkedWith() async throws {
        let (store, url) = try await Self.openPostgres()
        let middle = try await Self.fill(store)
        let whole = try await store.snapshot()
        let server = try #require(whole.server)
        let marked = try await store.changes(from: middle - 3, through: middle).map { IndexMark.Change(sequence: $0.sequence, digest: $0.digest) }
        #expect(marked.count == 4)
        func taken(_ coverage: IndexCoverage) async throws -> Bool {
            let snapshot = try await store.snapshot(reusing: ["shop": coverage, citiesCollection: coverage])
            #expect(snapshot.historyHeld == (snapshot.covered.isEmpty ? [] : ["shop", citiesCollection]))
            return snapshot.covered == ["shop": middle]
        }
        let lost = [IndexMark.Change(sequence: middle, digest: 42)]
        #expect(try await taken(Self.coverage(middle, whole.epoch, server: server)))  // the same server: one history
        #expect(try await taken(Self.coverage(middle, whole.epoch, server: "a promoted standby", changes: marked)))
        #expect(try await !taken(Self.coverage(middle, whole.epoch, server: "a promoted standby", changes: lost)))
        #expect(try await !taken(Self.coverage(middle, whole.epoch, server: "a promoted standby", changes: [])))
        #expect(try await !taken(IndexCoverage(
            sequence: middle, schema: try CollectionSchema.decode(json: Array(Self.schema.utf8)), epoch: whole.epoch)))

        // The change before `middle` rewritten: the histories part there.
        await ScratchPostgres.psql(url.databaseString, "UPDATE signalbox_change SET body = '{\"sku\":\"new\"}' WHERE seq = \(middle - 1)")
        #expect(try await !taken(Self.coverage(middle, whole.epoch, server: "a promoted standby", changes: marked)))
        #expect(try await taken(Self.coverage(middle, whole.epoch, server: "a promoted standby", changes: Array(marked.suffix(1)))))
        // The log no longer reaches `middle`: nothing to compare with.
        await ScratchPostgres.psql(url.databaseString, "DELETE FROM signalbox_change WHERE seq <= \(middle)")
        #expect(try await !taken(Self.coverage(middle, whole.epoch, server: "a promoted standby", changes: Array(marked.suffix(1)))))
        #expect(try await taken(Self.coverage(middle, whole.epoch, server: server)))
        await store.close()
    }

    /// A store on a new database of the scratch PostgreSQL, and the database's URL.
    static func openPostgres() async throws -> (PostgresStore, PostgresURL) {
        let url = try await ScratchPostgres.freshDatabase()
        let store = try await PostgresStore(
            url: url, baseDigest: "base", history: 1024, timeout: .seconds(5), startTimeout: ScratchPostgres.startTimeout,
            logger: Logger(label: "test.postgres"))
        return (store, url)
    }

    @Test func sqlite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coverage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.check(try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path))
    }

    @Test(.enabled("PostgreSQL is not installed") { await ScratchPostgres.isAvailable() })
    func postgres() async throws {
        let (store, _) = try await Self.openPostgres()
        try await Self.check(store)
        await store.close()
    }
}
