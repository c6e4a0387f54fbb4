import Foundation
import GRDB
import Testing
@testable import Signalbox

@Suite struct SQLiteStoreTests {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("signalbox-store-\(UUID().uuidString)/store.sqlite").path

    init() throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }

    @Test func writesSurviveReopening() async throws {
        let epoch: String
        do {
            let store = try SQLiteStore(path: path)
            let empty = try await store.snapshot()
            #expect(empty.head == 0 && empty.documents.isEmpty)
            epoch = empty.epoch
            #expect(try await store.commit(.upsert(id: "1", body: Data(#"{"a":1}"#.utf8))) == 1)
            #expect(try await store.commit(.upsert(id: "2", body: Data(#"{"b":2}"#.utf8))) == 2)
            #expect(try await store.commit(.delete(id: "1", inBaseData: false)) == 3)
        }
        let reopened = try SQLiteStore(path: path)
        let snapshot = try await reopened.snapshot()
        #expect(snapshot.documents == [
            StoredChange(id: "2", body: Data(#"{"b":2}"#.utf8), sequence: 2),
            StoredChange(id: "1", body: nil, sequence: 3),
        ])
        #expect(snapshot.head == 3)
        #expect(snapshot.epoch == epoch && !epoch.isEmpty)
        #expect(try reopened.integrityCheck())
    }

    /// Issue 27: a restarted server replays what a resuming client missed from the change log.
    @Test func theChangeLogKeepsTheNewestChangesAcrossReopening() async throws {
        do {
            let store = try SQLiteStore(path: path, history: 2)
            for id in ["a", "b", "c"] { _ = try await store.commit(.upsert(id: id, body: Data(#"{"x":1}"#.utf8))) }
            _ = try await store.commit(.delete(id: "a", inBaseData: false))
        }
        let snapshot = try await SQLiteStore(path: path, history: 2).snapshot()
        #expect(snapshot.recentChanges == [
            StoredChange(id: "c", body: Data(#"{"x":1}"#.utf8), sequence: 3),
            StoredChange(id: "a", body: nil, sequence: 4),
        ])
        #expect(snapshot.head == 4)
    }

    /// Issue 25: a store written by the release before collections (1dd7cca: documents keyed by
    /// id, no head counter, no change log) opens and upgrades in place, every document and
    /// sequence number kept, as the cities' documents.
    @Test func aStoreFromTheReleaseBeforeCollectionsUpgradesInPlace() async throws {
        try writeReleaseBeforeCollectionsStore(rows: "('a', X'7B7D', 1), ('b', NULL, 3), ('c', X'7B7D', 7)")
        let store = try SQLiteStore(path: path)
        let snapshot = try await store.snapshot()
        #expect(snapshot.head == 7 && snapshot.epoch == "old-epoch")
        #expect(snapshot.documents.map(\.id) == ["a", "b", "c"] && snapshot.documents.map(\.sequence) == [1, 3, 7])
        #expect(snapshot.documents.allSatisfy { $0.collection == citiesCollection })
        #expect(snapshot.recentChanges == [StoredChange(id: "c", body: Data("{}".utf8), sequence: 7)])
        #expect(try await store.commit(.upsert(id: "d", body: Data("{}".utf8))) == 8)
        #expect(try await store.commit(.putSchema(collection: "books", schema: Data(#"{"fields":[]}"#.utf8))) == 9)
        #expect(try await store.commit(.upsert(collection: "books", id: "a", body: Data("{}".utf8))) == 10)
        let after = try await store.snapshot()
        #expect(after.collections.map(\.name) == ["books"] && after.documents.count == 5)
        #expect(after.recentChanges.map(\.sequence) == [7, 8, 9, 10])
        #expect(try store.integrityCheck())
    }

    /// The upgrade's change log starts with the newest run of changes the old store still holds
    /// whole (changes 1 and 2 were overwritten by 6 and 7), so resumes from within it are served.
    @Test func anUpgradedStoreLogsTheNewestChangesItStillHoldsWhole() async throws {
        try writeReleaseBeforeCollectionsStore(rows: """
            ('up-1', NULL, 6), ('up-2', X'7B7D', 7), ('up-3', X'7B7D', 3), ('up-4', X'7B7D', 4),
            ('paris', X'7B7D', 5), ('london', NULL, 8), ('up-5', X'7B7D', 9), ('up-6', X'7B7D', 10)
            """)
        let snapshot = try await SQLiteStore(path: path).snapshot()
        #expect(snapshot.head == 10 && snapshot.recentChanges.map(\.sequence) == Array(3...10))
        #expect(snapshot.recentChanges.map(\.id) == ["up-3", "up-4", "paris", "up-1", "up-2", "london", "up-5", "up-6"])
        #expect(snapshot.recentChanges.filter { $0.body == nil }.map(\.id) == ["up-1", "london"])
        #expect(snapshot.recentChanges.allSatisfy { $0.collection == citiesCollection && $0.kind == .document })
    }

    @Test func anUpgradedStoreLogsNoMoreThanItsHistory() async throws {
        try writeReleaseBeforeCollectionsStore(rows: "('a', X'7B7D', 1), ('b', X'7B7D', 2), ('c', X'7B7D', 3), ('d', NULL, 4)")
        let snapshot = try await SQLiteStore(path: path, history: 2).snapshot()
        #expect(snapshot.recentChanges.map(\.sequence) == [3, 4])
        let reopened = try await SQLiteStore(path: path, history: 100).snapshot()
        #expect(reopened.recentChanges.map(\.sequence) == [3, 4])  // the log was filled once, by the migration
    }

    @Test func anEmptyStoreOfTheReleaseBeforeCollectionsUpgradesToAnEmptyLog() async throws {
        try writeReleaseBeforeCollectionsStore(rows: nil)
        let store = try SQLiteStore(path: path)
        let snapshot = try await store.snapshot()
        #expect(snapshot.head == 0 && snapshot.documents.isEmpty && snapshot.recentChanges.isEmpty)
        #expect(try await store.commit(.upsert(id: "a", body: Data("{}".utf8))) == 1)
    }

    /// The schema and rows a store written by 1dd7cca has: documents keyed by id, no head
    /// counter, no change log; `rows` are `(id, body, sequence)` tuples in SQL.
    private func writeReleaseBeforeCollectionsStore(rows: String?) throws {
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1'), ('v2: epoch');
                CREATE TABLE document (id TEXT PRIMARY KEY, body BLOB, sequence INTEGER NOT NULL UNIQUE);
                CREATE TABLE meta (epoch TEXT NOT NULL);
                INSERT INTO meta (epoch) VALUES ('old-epoch');
                """)
            if let rows { try db.execute(sql: "INSERT INTO document VALUES \(rows)") }
        }
    }

    @Test func collectionsKeepTheirDocumentsApartAndADroppedOneTakesThemAlong() async throws {
        let store = try SQLiteStore(path: path, history: 100)
        _ = try await store.commit(.putSchema(collection: "books", schema: Data("{}".utf8)))
        _ = try await store.commit(.upsert(collection: "books", id: "1", body: Data(#"{"t":"b"}"#.utf8)))
        _ = try await store.commit(.upsert(id: "1", body: Data(#"{"name":"city"}"#.utf8)))
        let first = try await store.commit(batch: (2...4).map { .upsert(collection: "books", id: "\($0)", body: Data("{}".utf8)) })
        #expect(first == 4)
        #expect(try await store.snapshot().documents.count == 5)
        #expect(try await store.commit(.dropCollection(collection: "books")) == 7)
        let snapshot = try await store.snapshot()
        #expect(snapshot.documents.map(\.collection) == [citiesCollection] && snapshot.collections.isEmpty)
        #expect(snapshot.recentChanges.map(\.sequence) == Array(1...7))
        #expect(snapshot.recentChanges.last == StoredChange(collection: "books", kind: .schema, id: "", body: nil, sequence: 7))
    }

    @Test func aDroppedCollectionTakesItsSynonymsAndStopWordsInTheSameChange() async throws {
        try await Self.aDroppedCollectionTakesItsSettings(try SQLiteStore(path: path, history: 100))
    }

    /// A dropped collection takes its documents and the internal ones named with it (its synonyms
    /// and stop words) in one commit, one sequence number; another collection's stay. Also run on
    /// PostgreSQL (`PostgresStoreTests`).
    static func aDroppedCollectionTakesItsSettings(_ store: any DocumentStore) async throws {
        let settings = TextSettingsDocuments.collection
        _ = try await store.commit(.putSchema(collection: "shop", schema: Data("{}".utf8)))
        _ = try await store.commit(.upsert(collection: "shop", id: "1", body: Data("{}".utf8)))
        for id in ["shop/synonyms", "shop/stopwords", "books/stopwords"] {
            _ = try await store.commit(.upsert(collection: settings, id: id, body: Data("{}".utf8)))
        }
        let head = try await store.snapshot().head
        let keys = TextSettingsDocuments.Part.allCases.map { DocumentKey(collection: settings, id: TextSettingsDocuments.id(of: "shop", $0)) }
        #expect(try await store.commit(.dropCollection(collection: "shop", alsoRemoving: keys)) == head + 1)
        let snapshot = try await store.snapshot()
        #expect(snapshot.head == head + 1)
        #expect(snapshot.documents.map { "\($0.collection) \($0.id)" } == ["\(settings) books/stopwords"])
        #expect(snapshot.recentChanges.last == StoredChange(collection: "shop", kind: .schema, id: "", body: nil, sequence: head + 1))
    }

    @Test func deletingWhatDoesNotExistIsNotFoundAndTakesNoSequenceNumber() async throws {
        let store = try SQLiteStore(path: path)
        await #expect(throws: DocumentNotFound.self) { try await store.commit(.delete(id: "x", inBaseData: false)) }
        #expect(try await store.commit(.delete(id: "base", inBaseData: true)) == 1)
        await #expect(throws: DocumentNotFound.self) { try await store.commit(.delete(id: "base", inBaseData: true)) }
        #expect(try await store.commit(.upsert(id: "x", body: Data("{}".utf8))) == 2)
    }

    @Test func aMissingDirectoryStopsTheStart() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-none-\(UUID().uuidString)/store.sqlite").path
        #expect(throws: StoreStartError.self) { try SQLiteStore(path: missing) }
        do {
            _ = try SQLiteStore(path: missing)
        } catch {
            #expect(error.reason == .directoryMissing && error.exitCode == 66 && error.description.contains(missing))
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func aFileThatIsNotADatabaseStopsTheStart() throws {
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("a corrupt store opened")
        } catch {
            #expect(error.reason == .corrupt && error.exitCode == 65 && error.description.contains(path))
        }
    }
}
