import Foundation
import HTTPTesting
import Logging
import Testing

@testable import Signalbox

/// A replica's saved collection indexes across a real failover with asynchronous replication
/// (issue 27 part 3): a primary and its streaming standby of their own (`scripts/pg-scratch`),
/// the standby stopped while the replica writes three more changes and saves its indexes, the
/// primary killed, the standby started and promoted without those changes, and three other
/// changes written at their numbers. The replica started again must not take its saved indexes
/// (they hold the lost changes and would skip the new ones as covered): it rebuilds them from
/// the store and serves the store's documents. The same start after a restart that lost
/// nothing takes them. Skipped where PostgreSQL is not installed.
@Suite(.enabled("PostgreSQL is not installed") { await ScratchPostgres.isAvailable() }, .timeLimit(.minutes(TestTime.scaled(minutes: 3))))
struct PersistedIndexFailoverTests {
    static let schema = #"{"fields": [{"name": "title", "type": "string", "search": true}]}"#
    let directory: URL

    init() throws {
        directory = try PersistedIndexTests.directoryWithOneCity("index-failover")
    }

    /// Runs `scripts/pg-scratch` with `arguments`; its output (a store URL for `start` and `standby`).
    @discardableResult
    static func pgScratch(_ arguments: String...) async throws -> String {
        let result = await ChildProcess.run("/bin/bash", [ScratchPostgres.root.appendingPathComponent("scripts/pg-scratch").path] + arguments)
        guard result.status == 0 else { throw ScratchPostgresUnavailable(reason: "pg-scratch \(arguments): \(result.output)") }
        // The last line: pg_ctl may say more before the URL.
        return result.output.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    }

    /// A replica of the store at `url`, in process, its indexes saved in the test's directory.
    func start(_ url: String) async throws -> SignalboxService {
        var settings = Settings()
        settings.storePath = url
        settings.dataPath = directory.appendingPathComponent("cities.ndjson").path
        settings.indexDirectory = directory.appendingPathComponent("index").path
        settings.apiKey = PersistedIndexTests.key
        settings.indexSaveInterval = 0
        settings.shutdownNotReadyDelay = 0
        var logger = Logger(label: "test.index-failover")
        logger.logLevel = .critical
        return try await SignalboxService(settings: settings, logger: logger)
    }

    static func put(_ service: SignalboxService, _ id: String, _ title: String) async throws {
        let response = try await PersistedIndexTests.send(service, .put, "/collections/shop/documents/\(id)", #"{"id": "\#(id)", "title": "\#(title)"}"#)
        try #require(response.status == .noContent)
    }

    /// The ids the shop's search for every document finds, sorted.
    static func shop(_ service: SignalboxService) async throws -> [String] {
        let response = try await PersistedIndexTests.send(service, .get, "/collections/shop/search?q=&limit=100")
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let hits = body?["hits"] as? [[String: Any]] ?? []
        return hits.compactMap { $0["id"] as? String }.sorted()
    }

    /// Waits until the standby at `standby` has replayed everything the primary at `primary` wrote:
    /// one statement that waits on the standby (at most a minute scaled), not a psql a poll, as
    /// every child process forked meanwhile holds a copy of the test process's descriptors (a
    /// released index directory lock among them) until it runs psql.
    static func caughtUp(_ standby: String, with primary: String) async throws {
        let (_, target) = await ScratchPostgres.psql(primary, "SELECT pg_current_wal_lsn()")
        let lsn = target.trimmingCharacters(in: .whitespacesAndNewlines)
        let seconds = Int(TestTime.scaled(seconds: 60))
        let (status, output) = await ScratchPostgres.psql(standby, """
            SET statement_timeout = '\(seconds)s';
            DO $$ BEGIN WHILE pg_last_wal_replay_lsn() < '\(lsn)'::pg_lsn LOOP PERFORM pg_sleep(0.02); END LOOP; END $$
            """)
        #expect(status == 0, "the standby did not catch up: \(output)")
    }

    @Test func aSavedIndexHoldingChangesAFailoverLostIsRebuiltFromTheStore() async throws {
        let primaryDirectory = directory.appendingPathComponent("primary").path
        let standbyDirectory = directory.appendingPathComponent("standby").path
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let primary = try await Self.pgScratch("start", primaryDirectory)
            // pg_basebackup waits for a spread checkpoint (minutes): one now leaves it nothing to write.
            await ScratchPostgres.psql(primary, "CHECKPOINT")
            let standby = try await Self.pgScratch("standby", standbyDirectory, primaryDirectory)
            let standbyPort = try String(contentsOfFile: standbyDirectory + "/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

            // Written on the primary and streamed to the standby: 1 (the schema) to 3.
            let first = try await start(primary)
            try #require(try await PersistedIndexTests.send(first, .put, "/collections/shop", Self.schema).status == .created)
            try await Self.put(first, "a", "Old")
            try await Self.put(first, "b", "Kept")
            try await Self.caughtUp(standby, with: primary)
            // The standby stops receiving; 4 to 6 reach the primary only, and the indexes are saved at 6.
            try await Self.pgScratch("kill", standbyDirectory)
            try await Self.put(first, "a", "Lost")
            try await Self.put(first, "c", "Lost")
            try await Self.put(first, "d", "Lost")
            #expect(try await Self.shop(first) == ["a", "b", "c", "d"])
            await first.shutdown()

            // A restart of the primary that loses nothing: another server process, the same history.
            try await Self.pgScratch("restart", primaryDirectory)
            let again = try await start(primary)
            #expect(again.collectionIndexesLoaded == 1)
            #expect(again.citiesIndexLoaded)
            await again.shutdown()

            // The primary lost, the standby promoted without 4 to 6; three other changes take their numbers.
            try await Self.pgScratch("kill", primaryDirectory)
            let promoted = try await Self.pgScratch("start", standbyDirectory, standbyPort)
            try await Self.pgScratch("promote", standbyDirectory)
            let base = try BaseData.load(path: directory.appendingPathComponent("cities.ndjson").path, withDigest: true)
            let store = try await PostgresStore(
                url: try PostgresURL(promoted), baseDigest: base.digest, history: 1024, timeout: TestTime.scaled(.seconds(5)), startTimeout: ScratchPostgres.startTimeout, logger: Logger(label: "test"))
            for id in ["e", "f", "g"] {
                _ = try await store.commit(.upsert(collection: "shop", id: id, body: Data(#"{"id": "\#(id)", "title": "New"}"#.utf8)))
            }
            #expect(try await store.head() == 6)
            await store.close()

            let after = try await start(promoted)
            #expect(after.collectionIndexesLoaded == 0)
            #expect(try await Self.shop(after) == ["a", "b", "e", "f", "g"])
            let a = try await PersistedIndexTests.send(after, .get, "/collections/shop/documents/a")
            #expect(String(decoding: a.body, as: UTF8.self).contains("Old"))
            #expect(try await PersistedIndexTests.send(after, .get, "/collections/shop/documents/c").status == .notFound)
            await after.shutdown()
            // Saved anew from the store's history: the next start takes it.
            let last = try await start(promoted)
            #expect(last.collectionIndexesLoaded == 1)
            #expect(try await Self.shop(last) == ["a", "b", "e", "f", "g"])
            await last.shutdown()
        } catch {
            Issue.record("\(error)")
        }
        _ = try? await Self.pgScratch("stop", standbyDirectory)
        _ = try? await Self.pgScratch("stop", primaryDirectory)
    }
}
