import Base
import Foundation
import HTTPTesting
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Rx
import Search
import Testing
@testable import Signalbox

/// Several hosts and `target_session_attrs` against a real server (issue 27), and a replica
/// going back when the store lost changes it had applied. The failover of a real standby
/// under load is `scripts/cluster-test`'s; skipped where PostgreSQL is not installed.
@Suite(.enabled("PostgreSQL is not installed") { await ScratchPostgres.isAvailable() }, .timeLimit(.minutes(TestTime.scaled(minutes: 2))))
struct PostgresFailoverTests {
    static let logger: Logger = {
        var logger = Logger(label: "test.failover")
        logger.logLevel = .critical
        return logger
    }()

    /// `url` with `hosts` in front of its own, and these options.
    static func url(_ url: PostgresURL, before hosts: [String], options: String) throws -> PostgresURL {
        let list = (hosts + [url.hosts[0].description]).joined(separator: ",")
        return try PostgresURL("postgres://\(url.username)@\(list)/\(url.database!)?sslmode=disable&\(options)")
    }

    /// A loopback port nobody listens on.
    static func deadHost() -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                _ = bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        close(fd)
        return "127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    func open(_ url: PostgresURL, timeout: Duration = TestTime.scaled(.seconds(5))) async throws -> PostgresStore {
        try await PostgresStore(url: url, baseDigest: "base", history: 1024, timeout: timeout, startTimeout: ScratchPostgres.startTimeout, logger: Self.logger)
    }

    @Test func aDownHostIsPassedOverForTheNextThatTakesWrites() async throws {
        let plain = try await ScratchPostgres.freshDatabase()
        let url = try Self.url(plain, before: [Self.deadHost()], options: "target_session_attrs=read-write")
        let store = try await open(url)
        #expect(try await store.commit(.upsert(id: "a", body: Data("{}".utf8))) == 1)
        #expect(try await store.primary.host() == plain.hosts[0])
        await store.close()
    }

    @Test func noHostToWriteToFailsTheStartNamingEachHost() async throws {
        let plain = try await ScratchPostgres.freshDatabase()
        let dead = Self.deadHost()
        let url = try PostgresURL("postgres://\(plain.username)@\(dead)/\(plain.database!)?sslmode=disable&target_session_attrs=read-write")
        do {
            _ = try await open(url)
            Issue.record("a store with no reachable host opened")
        } catch {
            #expect("\(error)".contains("no host of") && "\(error)".contains(dead))
        }
    }

    /// The server stops taking writes (a demoted primary, here `default_transaction_read_only`):
    /// the store leaves it after the failure, finds no host while none qualifies, and takes it
    /// again once it does, on the same store object.
    @Test func aHostThatStopsTakingWritesIsLeftAndFoundAgainWhenItTakesThemAgain() async throws {
        let plain = try await ScratchPostgres.freshDatabase()
        let url = try Self.url(plain, before: [], options: "target_session_attrs=read-write")
        let store = try await open(url, timeout: .seconds(2))
        #expect(try await store.commit(.upsert(id: "a", body: Data("{}".utf8))) == 1)
        let database = plain.database!
        await ScratchPostgres.psql(plain.adminString, "ALTER DATABASE \(database) SET default_transaction_read_only = on")
        await ScratchPostgres.psql(plain.adminString, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
        // Writes fail (503) until a host qualifies again; the failures make the store look again.
        var refusal = ""
        for _ in 0..<50 where !refusal.contains("read-only primary") {
            do {
                _ = try await store.commit(.upsert(id: "b", body: Data("{}".utf8)))
            } catch {
                refusal = "\(error)"
            }
            try await Task.sleep(for: PostgresPrimary.searchInterval)
        }
        #expect(refusal.contains("read-only primary"), "last refusal: \(refusal)")
        await ScratchPostgres.psql(plain.adminString, "ALTER DATABASE \(database) SET default_transaction_read_only = off")
        var committed: Int64?
        for _ in 0..<50 where committed == nil {
            committed = try? await store.commit(.upsert(id: "c", body: Data("{}".utf8)))
            if committed == nil { try await Task.sleep(for: PostgresPrimary.searchInterval) }
        }
        #expect(committed != nil)
        await store.close()
    }

    /// A failover with asynchronous replication: the new primary lacks the last changes this
    /// replica applied (8...10), and new writes took their numbers. The replica goes back to 7,
    /// puts the documents those changes touched back as the store has them, tells its event
    /// clients to reset, and then applies the store's 8 and 9: one number, one change.
    @Test func aReplicaThatAppliedChangesTheStoreLostGoesBackToTheLastCommonOne() async throws {
        let url = try await ScratchPostgres.freshDatabase()
        let store = try await open(url)
        let index = SearchIndex(documents: [Document(id: "base", name: "Baseville")])
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 100)
        let lookups = SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics())
        let applier = ChangeApplier(index: index, lookups: lookups, feed: feed, metrics: ServiceMetrics(), applied: 0)
        let follower = PostgresFollower(
            store: store, applier: applier, metrics: ReplicationMetrics(), pollInterval: .seconds(60), batch: 100, history: 100,
            baseDocuments: { ids in ids.contains("base") ? [Document(id: "base", name: "Baseville")] : [] }, logger: Self.logger)
        for n in 1...9 { _ = try await store.commit(.upsert(id: "d\(n)", body: Data(#"{"id":"d\#(n)","name":"Town \#(n)"}"#.utf8))) }
        _ = try await store.commit(.delete(id: "base", inBaseData: true))  // 10
        try await follower.catchUpNow()
        await EventEndpointsTests.applied(applier, 10)
        #expect(index.document(id: "d9") != nil && index.document(id: "base") == nil)

        // What a standby promoted before it received 8...10 holds, and two writes since.
        await ScratchPostgres.psql(url.databaseString, """
            DELETE FROM signalbox_change WHERE seq > 7; DELETE FROM signalbox_document WHERE seq > 7;
            UPDATE signalbox_meta SET head = 7
            """)
        #expect(try await store.commit(.upsert(id: "n8", body: Data(#"{"id":"n8","name":"New 8"}"#.utf8))) == 8)
        #expect(try await store.commit(.upsert(id: "d8", body: Data(#"{"id":"d8","name":"Other 8"}"#.utf8))) == 9)

        let work = Locked<Task<Void, any Error>?>(nil)
        // A client connected before: its position, the reset, then the store's 8 and 9.
        let items = await firstItems(4, of: feed.stream(from: .now)) {
            work.withLock { $0 = Task {
                try await follower.checkHistory()
                try await follower.catchUpNow()
            } }
        }
        try await work.withLock { $0 }!.value
        #expect(Array(items.prefix(2)) == [.position(10), .reset(lastSequence: 7)])
        let replayed: [Int64] = items.dropFirst(2).compactMap { if case .change(let change) = $0 { change.sequence } else { nil } }
        #expect(replayed == [8, 9])
        await EventEndpointsTests.applied(applier, 9)
        #expect(applier.applied.value == 9)
        #expect(index.document(id: "d7")?.name == "Town 7")
        #expect(index.document(id: "d8")?.name == "Other 8")
        #expect(index.document(id: "d9") == nil)  // lost: never in the store now
        #expect(index.document(id: "n8")?.name == "New 8")
        #expect(index.document(id: "base")?.name == "Baseville")  // its delete was lost
        // Checked again, the two histories agree now.
        #expect(HistoryCheck.compare(
            applied: applier.recentlyApplied(), stored: try await store.changes(from: 1, through: 9), storeHead: 9) == .consistent)
        follower.stop()
        await store.close()
    }

    /// The same for a collection's documents (issue 25's collections on issue 27's rewind): a lost
    /// write of a document that the store still has goes back to the store's version, a lost new
    /// document goes, each in its collection.
    @Test func aLostWriteToACollectionsDocumentIsPutBackAsTheStoreHasIt() async throws {
        let url = try await ScratchPostgres.freshDatabase()
        let store = try await open(url)
        let index = SearchIndex(documents: [])
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 100)
        let lookups = SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics())
        let catalog = CollectionCatalog()
        let applier = ChangeApplier(
            index: index, lookups: lookups, collections: catalog, feed: feed, metrics: ServiceMetrics(), applied: 0)
        let follower = PostgresFollower(
            store: store, applier: applier, metrics: ReplicationMetrics(), pollInterval: .seconds(60), batch: 100, history: 100,
            baseDocuments: { _ in [] }, logger: Self.logger)
        let schema = Data(#"{"fields":[{"name":"title","type":"string","search":true}]}"#.utf8)
        func shop(_ id: String, _ title: String) -> StoreWrite {
            .upsert(collection: "shop", id: id, body: Data(#"{"id":"\#(id)","title":"\#(title)"}"#.utf8))
        }
        _ = try await store.commit(.putSchema(collection: "shop", schema: schema))  // 1
        _ = try await store.commit(shop("a", "Old"))  // 2
        _ = try await store.commit(shop("a", "New"))  // 3, lost below
        _ = try await store.commit(shop("b", "Lost"))  // 4, lost below
        try await follower.catchUpNow()
        await EventEndpointsTests.applied(applier, 4)
        func title(_ id: String) -> String? {
            catalog.named("shop")?.index.document(id: id).map { String(decoding: $0.body, as: UTF8.self) }
        }
        #expect(title("a")?.contains("New") == true && title("b") != nil)

        // What a standby promoted before it received 3 and 4 holds.
        await ScratchPostgres.psql(url.databaseString, """
            DELETE FROM signalbox_change WHERE seq > 2; DELETE FROM signalbox_document WHERE seq > 2;
            INSERT INTO signalbox_document (collection, id, body, seq) VALUES ('shop', 'a', '{"id":"a","title":"Old"}', 2);
            UPDATE signalbox_meta SET head = 2
            """)
        try await follower.checkHistory()
        try await follower.catchUpNow()
        #expect(applier.applied.value == 2)
        #expect(title("a")?.contains("Old") == true)
        #expect(title("b") == nil)
        follower.stop()
        await store.close()
    }

    /// A replica starts from a snapshot one server answered, and another answers its first read
    /// of the log (a promotion in between): the history it started from is checked before it
    /// applies anything, and the server is recorded as the one whose history it holds (the
    /// marks of the indexes it saves, ``IndexMark``) only once checked.
    @Test func aFirstReadAnsweredByAnotherServerThanTheStartsSnapshotIsChecked() async throws {
        let url = try await ScratchPostgres.freshDatabase()
        let store = try await open(url)
        for n in 1...3 { _ = try await store.commit(.upsert(id: "d\(n)", body: Data(#"{"id":"d\#(n)","name":"Town \#(n)"}"#.utf8))) }
        let snapshot = try await store.snapshot()
        let server = try #require(snapshot.server)
        // What the old primary had at 3, where the store now has d3.
        let lost = StoredChange(id: "lost", body: Data(#"{"id":"lost","name":"Lost"}"#.utf8), sequence: 3)
        let started = Array(snapshot.recentChanges.dropLast()) + [lost]
        let index = SearchIndex(documents: [Document(id: "d1", name: "Town 1"), Document(id: "d2", name: "Town 2"), Document(id: "lost", name: "Lost")])
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 3, capacity: 100)
        let lookups = SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics())
        let applier = ChangeApplier(
            index: index, lookups: lookups, feed: feed, metrics: ServiceMetrics(), applied: 3, recentChanges: started, server: "old primary")
        let follower = PostgresFollower(
            store: store, applier: applier, metrics: ReplicationMetrics(), pollInterval: .seconds(60), batch: 100, history: 100,
            baseDocuments: { _ in [] }, logger: Self.logger, server: "old primary")
        try await follower.catchUpNow()
        await EventEndpointsTests.applied(applier, 3)
        #expect(index.document(id: "lost") == nil)
        #expect(index.document(id: "d3")?.name == "Town 3")
        #expect(applier.markPosition() == IndexMark.Position(server: server, rewinds: 1, served: 3))
        follower.stop()
        await store.close()
    }
}

