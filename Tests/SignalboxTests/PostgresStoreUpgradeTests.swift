import Foundation
import HTTPTesting
import Logging
import Testing
@testable import Signalbox

/// Issue 25 on PostgreSQL: a store of the release before collections (1dd7cca, schema version 1)
/// upgrades in place, and an import's batch takes consecutive numbers ending at the head.
/// `scripts/e2e.d/upgrade.py` checks the same with that release's binary.
@Suite(.enabled("PostgreSQL is not installed") { await ScratchPostgres.isAvailable() })
struct PostgresStoreUpgradeTests {
    func open(_ url: PostgresURL, history: Int = 1024) async throws -> PostgresStore {
        try await PostgresStore(url: url, baseDigest: "base", history: history, timeout: TestTime.scaled(.seconds(5)), startTimeout: ScratchPostgres.startTimeout, logger: PostgresStoreTests.logger)
    }

    /// Version 1's tables as 1dd7cca made them, with its rows: documents keyed by id, the change log
    /// (changes 1 and 2 of `a` overwritten by 5; `b` deleted at 4).
    func writeVersionOneStore(_ url: PostgresURL) async throws {
        let sql =
            PostgresStore.schemaV1.joined(separator: ";\n") + """
                ;
                CREATE TABLE signalbox_schema (version integer NOT NULL);
                INSERT INTO signalbox_schema VALUES (1);
                INSERT INTO signalbox_meta (epoch, base_digest, head) VALUES ('old-epoch', 'base', 5);
                INSERT INTO signalbox_document (id, body, seq) VALUES ('c', '{"name":"C"}', 3), ('b', NULL, 4), ('a', '{"name":"A2"}', 5);
                INSERT INTO signalbox_change (seq, id, body) VALUES
                    (1, 'a', '{"name":"A"}'), (2, 'b', '{"name":"B"}'), (3, 'c', '{"name":"C"}'), (4, 'b', NULL), (5, 'a', '{"name":"A2"}');
                """
        let (status, output) = await ScratchPostgres.psql(url.databaseString, sql)
        try #require(status == 0, "\(output)")
    }

    @Test func aVersionOneStoreUpgradesInPlaceKeepingEveryDocumentAndChange() async throws {
        let url = try await ScratchPostgres.freshDatabase()
        try await writeVersionOneStore(url)
        let store = try await open(url)
        let snapshot = try await store.snapshot()
        #expect(snapshot.head == 5 && snapshot.epoch == "old-epoch")
        #expect(snapshot.documents.map(\.id) == ["c", "b", "a"] && snapshot.documents.map(\.sequence) == [3, 4, 5])
        #expect(snapshot.documents.allSatisfy { $0.collection == citiesCollection })
        #expect(snapshot.documents.last?.body == Data(#"{"name":"A2"}"#.utf8) && snapshot.documents[1].body == nil)
        // The whole log, each change as it was: a resume from any old id is replayed exactly.
        #expect(snapshot.recentChanges.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(snapshot.recentChanges.map(\.id) == ["a", "b", "c", "b", "a"])
        #expect(snapshot.recentChanges.allSatisfy { $0.collection == citiesCollection && $0.kind == .document })
        #expect(snapshot.recentChanges.first?.body == Data(#"{"name":"A"}"#.utf8))
        #expect(await ScratchPostgres.psql(url.databaseString, "SELECT version FROM signalbox_schema").1.hasPrefix("2"))
        // Writes continue from the old head, a city and a new collection alike.
        #expect(try await store.commit(.upsert(id: "d", body: Data("{}".utf8))) == 6)
        #expect(try await store.commit(.putSchema(collection: "books", schema: Data(#"{"fields":[]}"#.utf8))) == 7)
        #expect(try await store.commit(.upsert(collection: "books", id: "a", body: Data("{}".utf8))) == 8)
        let after = try await store.changes(after: 5, limit: 10)
        #expect(after.head == 8 && after.changes.map(\.collection) == [citiesCollection, "books", "books"])
        await store.close()
        // Opened again: nothing migrates twice.
        let again = try await open(url)
        #expect(try await again.snapshot().documents.count == 5)
        await again.close()
    }

    /// What makes an import's `Signalbox-Seq` its last change: a batch's numbers are consecutive
    /// from the one returned, so its last is the first + count - 1, and the head after it.
    @Test func anImportBatchTakesConsecutiveNumbersEndingAtTheHead() async throws {
        let url = try await ScratchPostgres.freshDatabase()
        let store = try await open(url)
        _ = try await store.commit(.putSchema(collection: "books", schema: Data(#"{"fields":[]}"#.utf8)))
        let batch = (1...5).map { StoreWrite.upsert(collection: "books", id: "b\($0)", body: Data("{}".utf8)) }
        let first = try await store.commit(batch: batch)
        #expect(first == 2)
        #expect(try await store.head() == first + Int64(batch.count) - 1)
        let log = try await store.changes(after: 1, limit: 10)
        #expect(log.changes.map(\.sequence) == Array(2...6) && log.changes.map(\.id) == (1...5).map { "b\($0)" })
        #expect(try await store.commit(.upsert(collection: "books", id: "b6", body: Data("{}".utf8))) == 7)
        await store.close()
    }
}
