import Base
import Foundation
import HTTPTesting
import Logging
import PostgresNIO
import Rx
import Search
import Testing
@testable import Signalbox

/// A commit's NOTIFY carries its changes (``ChangeNotification``) against a real server, and a
/// follower applies them without reading the log; skipped where PostgreSQL is not installed.
@Suite(.enabled("PostgreSQL is not installed") { await ScratchPostgres.isAvailable() }, .timeLimit(.minutes(TestTime.scaled(minutes: 2))))
struct PostgresNotificationTests {
    static let logger: Logger = {
        var logger = Logger(label: "test.notification")
        logger.logLevel = .critical
        return logger
    }()

    func open(_ url: PostgresURL) async throws -> PostgresStore {
        try await PostgresStore(
            url: url, baseDigest: "base", history: 1024, timeout: TestTime.scaled(.seconds(5)), startTimeout: ScratchPostgres.startTimeout,
            logger: Self.logger)
    }

    /// Every commit's notification, a group's, a delete's and a schema's, carries exactly the
    /// changes the log holds for its numbers.
    @Test func aCommitsNotificationCarriesWhatTheLogHolds() async throws {
        let url = try await ScratchPostgres.freshDatabase()
        let store = try await open(url)
        let (configuration, _) = try await store.listenerConfiguration()
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 9, logger: Self.logger)
        let heard = Task {
            var carried: [StoredChange] = []
            try await connection.listen(on: PostgresStore.channel) { notifications in
                for try await notification in notifications {
                    let read = try #require(ChangeNotification(payload: notification.payload))
                    #expect(read.isComplete && read.origin == store.origin)
                    carried += read.changes
                    if read.head == 12 { break }
                }
            }
            return carried
        }
        // Listening once a notification sent after the LISTEN comes back on the same connection's stream.
        try await waitUntilListening(url)
        _ = try await store.commit(.putSchema(collection: "shop", schema: Data(#"{"fields":[{"name":"title","type":"string"}]}"#.utf8)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...10 {
                group.addTask {
                    _ = try await store.commit(.upsert(collection: n % 2 == 0 ? "shop" : citiesCollection, id: "d\(n % 7)",
                                                       body: Data(#"{"id":"d\#(n % 7)","title":"Ünï \#(n)"}"#.utf8)))
                }
            }
            try await group.waitForAll()
        }
        _ = try await store.commit(.delete(collection: "shop", id: "d2", inBaseData: false))
        let carried = try await heard.value
        let log = try await store.changes(from: 1, through: 12)
        #expect(log.count == 12)
        #expect(carried == log)
        try await connection.close()
        await store.close()
    }

    /// A change that reaches the replica only in a notification (the log does not hold it: the
    /// notification is sent by hand) is applied, with its event: the follower did not read it.
    @Test func aFollowerAppliesTheChangesANotificationCarriesWithoutReadingThem() async throws {
        let url = try await ScratchPostgres.freshDatabase()
        let store = try await open(url)
        for n in 1...3 { _ = try await store.commit(.upsert(id: "d\(n)", body: Data(#"{"id":"d\#(n)","name":"Town \#(n)"}"#.utf8))) }
        let snapshot = try await store.snapshot()
        let index = SearchIndex(documents: [])
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 3, capacity: 100)
        let lookups = SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics())
        let applier = ChangeApplier(
            index: index, lookups: lookups, feed: feed, metrics: ServiceMetrics(), applied: 3, recentChanges: snapshot.recentChanges,
            server: snapshot.server)
        let follower = PostgresFollower(
            store: store, applier: applier, metrics: ReplicationMetrics(), pollInterval: .seconds(600), batch: 100, history: 100,
            baseDocuments: { _ in [] }, logger: Self.logger, server: snapshot.server)
        follower.start()
        try await waitUntilListening(url)
        let tail = ChangeNotification.tail(
            for: [(.document, citiesCollection, "heard", #"{"id":"heard","name":"Heardville"}"#)], origin: "another")
        await ScratchPostgres.psql(url.databaseString, "SELECT pg_notify('\(PostgresStore.channel)', '4\(tail)')")
        try await applier.applied(atLeast: 4, within: .seconds(30)).value
        #expect(index.document(id: "heard")?.name == "Heardville")
        #expect(try await store.head() == 3)  // the log never held it
        follower.stop()
        await store.close()
    }

    /// The failover guarantee on this path: a notification's changes are applied as they come only
    /// from the server whose history this replica's reads confirmed; one from another server (a
    /// promoted standby, before the read that checks it) is left to that read.
    @Test func onlyTheConfirmedServersNotificationsAreAppliedAsTheyCome() async throws {
        let url = try await ScratchPostgres.freshDatabase()
        let store = try await open(url)
        let index = SearchIndex(documents: [])
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 100)
        let lookups = SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics())
        let applier = ChangeApplier(index: index, lookups: lookups, feed: feed, metrics: ServiceMetrics(), applied: 0, server: "primary")
        let follower = PostgresFollower(
            store: store, applier: applier, metrics: ReplicationMetrics(), pollInterval: .seconds(600), batch: 100, history: 100,
            baseDocuments: { _ in [] }, logger: Self.logger, server: "primary")
        func notification(_ id: String) throws -> ChangeNotification {
            try #require(ChangeNotification(payload: "1" + ChangeNotification.tail(
                for: [(.document, citiesCollection, id, #"{"id":"\#(id)","name":"\#(id)"}"#)], origin: "other")))
        }
        #expect(!follower.offer(try notification("promoted"), from: "standby"))
        #expect(applier.heldThrough == 0)
        #expect(follower.offer(try notification("kept"), from: "primary"))
        try await applier.applied(atLeast: 1, within: .seconds(30)).value
        #expect(index.document(id: "kept") != nil && index.document(id: "promoted") == nil)
        await store.close()
    }

    /// Polls until a session of this database is listening on the channel (a LISTEN has no
    /// acknowledgement a test could await from outside).
    func waitUntilListening(_ url: PostgresURL) async throws {
        for _ in 0..<500 {
            let (_, output) = await ScratchPostgres.psql(
                url.databaseString,
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND state = 'idle'")
            if output.trimmingCharacters(in: .whitespacesAndNewlines) != "0" { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("nobody listened within 10 s")
    }
}
