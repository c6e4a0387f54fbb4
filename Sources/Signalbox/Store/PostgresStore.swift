import Base
import Foundation
import Logging
import PostgresNIO

/// The cluster's store: PostgreSQL, shared by every replica (through postgres-nio).
///
/// Order without gaps: a one-row head counter (`signalbox_meta.head`) is
/// raised in the same transaction as the document row and its change row.
/// Its row lock makes writers take their sequence numbers in commit order, and
/// a transaction that rolls back gives its number back, so a replica that reads
/// `WHERE seq > applied ORDER BY seq` never skips a change that commits later.
/// `docs/cluster.md` describes the schema.
final class PostgresStore: DocumentStore {
    /// Bumped with every schema change; the service migrates older schemas at start.
    static let schemaVersion = 2
    /// The channel a commit notifies, with its head and the changes it made when they fit
    /// (``ChangeNotification``); the change log stays the truth, read whenever they do not.
    static let channel = "signalbox_change"

    let url: PostgresURL
    /// The pool to whichever host of the URL is the primary now.
    let primary: PostgresPrimary
    /// Changes kept in the log for followers and `Last-Event-ID` resumes.
    private let history: Int64
    /// How long a commit may take before it answers `StoreError.unavailable`.
    private let timeout: Duration
    private let logger: Logger
    /// Names this store (this replica's process) in its commits' notifications (``ChangeNotification``):
    /// its own listener leaves them to the commit's answer, which stages them.
    let origin = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    /// Upserts that arrive while one commits go together in the next.
    private let upserts: GroupCommit<PostgresUpsert>
    /// The connection the upserts' groups share while they come back to back.
    private let session = CommitSession()

    /// Connects, creates or migrates the schema, and checks that this replica serves the same base data as the others.
    /// Starting may take `startTimeout` (by default three commit limits, at least 15 s): starting
    /// is not a client waiting, so a slow or busy database gets longer than a commit.
    init(url: PostgresURL, baseDigest: String, history: Int, timeout: Duration, startTimeout: Duration? = nil, logger: Logger) async throws {
        self.url = url
        self.history = Int64(max(history, 1))
        self.timeout = timeout
        self.logger = logger
        let primary = PostgresPrimary(url: url, logger: logger)
        self.primary = primary
        // Each upsert is answered within the commit's time limit, queued and committed: its group
        // gets the time its oldest write has left, so a group stuck waiting for a connection is
        // given up (and never committed) rather than landing after its clients heard 503.
        let session = self.session
        upserts = GroupCommit(
            maxBatch: 256, limit: timeout, expired: { StoreError.unavailable(detail: "PostgreSQL did not commit within \(timeout)") },
            idle: { session.end() }
        ) { [history = self.history, origin] writes, left in
            do {
                return try await Self.within(left ?? timeout, "commit", primary) {
                    try await Self.leasing(primary) { lease in
                        let connection = try await session.connection(of: lease)
                        // Given up while it waited for the connection: never committed after its clients heard 503.
                        try Task.checkCancellation()
                        return try await Self.upsertGroup(writes, connection: connection, history: history, origin: origin, logger: logger)
                    }
                }
            } catch {
                session.end()
                throw error
            }
        }
        do {
            try await Self.within(startTimeout ?? max(timeout * 3, .seconds(15)), "connect to \(url)", nil) { [self] in
                try await migrate(baseDigest: baseDigest)
            }
        } catch {
            primary.close()
            throw error
        }
    }

    deinit {
        session.end()
        primary.close()
    }

    func close() async {
        session.end()
        primary.close()
    }

    /// Runs `work` on the primary's pool; a failure that points at the server has its host checked again.
    private static func using<T: Sendable>(_ primary: PostgresPrimary, _ work: (PostgresClient) async throws -> T) async throws -> T {
        try await leasing(primary) { lease in try await work(lease.client) }
    }

    /// ``using(_:_:)`` given the lease (which pool it is), not only its client.
    private static func leasing<T: Sendable>(_ primary: PostgresPrimary, _ work: (PostgresPrimary.Lease) async throws -> T) async throws -> T {
        let lease = try await primary.lease()
        do {
            return try await work(lease)
        } catch {
            primary.failed(lease, with: error)
            throw error
        }
    }

    private func using<T: Sendable>(_ work: (PostgresClient) async throws -> T) async throws -> T {
        try await Self.using(primary, work)
    }

    /// How long a read of many rows may take (a host that vanished without closing its
    /// connections holds a read until then); the follower's reads of the log get three commit timeouts.
    private var readTimeout: Duration { max(timeout * 3, .seconds(15)) }
    /// A whole snapshot (start, and a catch-up from the documents) may be large.
    private var snapshotTimeout: Duration { max(timeout * 20, .seconds(60)) }

    // MARK: Schema

    private func migrate(baseDigest: String) async throws {
        try await using { client in try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                // One replica migrates at a time; the others wait here, then see the result.
                try await connection.query("SELECT pg_advisory_xact_lock(7305117126120000001)", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS signalbox_schema (version integer NOT NULL)", logger: logger)
                let rows = try await connection.query("SELECT version FROM signalbox_schema", logger: logger)
                var version = 0
                for try await found in rows.decode(Int.self) { version = found }
                if version > Self.schemaVersion {
                    throw ClusterStartError.schemaTooNew(found: version, known: Self.schemaVersion)
                }
                if version < 1 {
                    for statement in Self.schemaV1 {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    let epoch = UUID().uuidString.lowercased()
                    try await connection.query(
                        "INSERT INTO signalbox_meta (epoch, base_digest, head) VALUES (\(epoch), \(baseDigest), 0)", logger: logger)
                    try await connection.query("DELETE FROM signalbox_schema", logger: logger)
                    try await connection.query("INSERT INTO signalbox_schema (version) VALUES (1)", logger: logger)
                    version = 1
                }
                if version < 2 {
                    for statement in Self.schemaV2 {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("UPDATE signalbox_schema SET version = 2", logger: logger)
                }
                let digests = try await connection.query("SELECT base_digest FROM signalbox_meta", logger: logger)
                for try await stored in digests.decode(String.self) where stored != baseDigest {
                    throw ClusterStartError.baseDataDiffers(stored: stored, local: baseDigest)
                }
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        } }
    }

    /// Version 1: the head counter with the store's epoch and base-data digest, the
    /// latest write per document, and the change log a follower tails.
    static let schemaV1 = [
        """
        CREATE TABLE signalbox_meta (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
            epoch text NOT NULL,
            base_digest text NOT NULL,
            head bigint NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now())
        """,
        "CREATE TABLE signalbox_document (id text PRIMARY KEY, body text, seq bigint NOT NULL UNIQUE)",
        """
        CREATE TABLE signalbox_change (
            seq bigint PRIMARY KEY, id text NOT NULL, body text,
            committed_at timestamptz NOT NULL DEFAULT clock_timestamp())
        """,
    ]

    /// Version 2 (issue 25): collections. Documents are keyed by collection and id (the rows of
    /// a version 1 store are the built-in cities'), a change names its collection and kind, and
    /// the created collections keep their schemas.
    static let schemaV2 = [
        "ALTER TABLE signalbox_document ADD COLUMN collection text NOT NULL DEFAULT 'cities'",
        "ALTER TABLE signalbox_document DROP CONSTRAINT signalbox_document_pkey",
        "ALTER TABLE signalbox_document ADD PRIMARY KEY (collection, id)",
        "ALTER TABLE signalbox_change ADD COLUMN collection text NOT NULL DEFAULT 'cities'",
        "ALTER TABLE signalbox_change ADD COLUMN kind text NOT NULL DEFAULT 'document'",
        "CREATE TABLE signalbox_collection (name text PRIMARY KEY, schema text NOT NULL, seq bigint NOT NULL)",
    ]

    // MARK: Reads

    func snapshot(reusing indexes: [String: IndexCoverage]) async throws -> StoreSnapshot {
        try await Self.within(snapshotTimeout, "read a snapshot", primary) { [self] in
            try await consistentRead(changedAfter: 0, reusing: indexes)
        }
    }

    /// The documents written after `sequence` (their latest write each), the head they add up to
    /// and the log's newest changes: how a follower catches up once the log no longer holds
    /// every change it missed.
    func documents(changedAfter sequence: Int64) async throws -> StoreSnapshot {
        try await Self.within(snapshotTimeout, "read the documents", primary) { [self] in try await consistentRead(changedAfter: sequence) }
    }

    /// `indexes`: as ``snapshot(reusing:)`` (a follower's catch-up passes none).
    private func consistentRead(changedAfter sequence: Int64, reusing indexes: [String: IndexCoverage] = [:]) async throws -> StoreSnapshot {
        try await using { client in try await client.withConnection { connection in
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                var head: Int64 = 0
                var epoch = ""
                for try await (found, foundEpoch) in try await connection.query(
                    "SELECT head, epoch FROM signalbox_meta", logger: logger
                ).decode((Int64, String).self) {
                    (head, epoch) = (found, foundEpoch)
                }
                var collections: [StoredCollection] = []
                let schemas = try await connection.query(
                    "SELECT name, schema, seq FROM signalbox_collection ORDER BY name", logger: logger)
                for try await (name, schema, seq) in schemas.decode((String, String, Int64).self) {
                    collections.append(StoredCollection(name: name, schema: Data(schema.utf8), sequence: seq))
                }
                let server = try await Self.serverIdentity(connection, logger: logger)
                let held = try await Self.historyHeld(by: indexes, server: server, connection, logger: logger)
                var covered: [String: Int64] = [:]
                for stored in collections where held.contains(stored.name) {
                    if let index = indexes[stored.name], index.fits(stored, head: head, epoch: epoch) { covered[stored.name] = index.sequence }
                }
                var documents: [StoredChange] = []
                func read(_ rows: PostgresRowSequence) async throws {
                    for try await (collection, id, body, seq) in rows.decode((String, String, String?, Int64).self) {
                        documents.append(StoredChange(collection: collection, id: id, body: body.map { Data($0.utf8) }, sequence: seq))
                    }
                }
                let names = covered.keys.sorted()
                try await read(connection.query(
                    "SELECT collection, id, body, seq FROM signalbox_document WHERE seq > \(sequence) AND NOT (collection = ANY(\(names))) ORDER BY seq",
                    logger: logger))
                // A collection whose persisted index fits: only what was written after it.
                for name in names {
                    try await read(connection.query(
                        "SELECT collection, id, body, seq FROM signalbox_document WHERE collection = \(name) AND seq > \(covered[name]!)",
                        logger: logger))
                }
                if !names.isEmpty { documents.sort { $0.sequence < $1.sequence } }
                var recent: [StoredChange] = []
                let log = try await connection.query(
                    "SELECT collection, kind, id, body, seq FROM signalbox_change ORDER BY seq DESC LIMIT \(history)", logger: logger)
                for try await row in log.decode((String, String, String, String?, Int64).self) { recent.append(Self.change(row)) }
                try await connection.query("COMMIT", logger: logger)
                return StoreSnapshot(
                    documents: documents, head: head, epoch: epoch, recentChanges: recent.reversed(), collections: collections,
                    covered: covered, historyHeld: held, server: server)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        } }
    }

    /// The server process answering on `connection` (``serverIdentity``).
    private static func serverIdentity(_ connection: PostgresConnection, logger: Logger) async throws -> String {
        var server = ""
        for try await found in try await connection.query("SELECT \(unescaped: serverIdentity)", logger: logger).decode(String.self) {
            server = found
        }
        return server
    }

    /// The names of `indexes` whose ``IndexMark`` names this store's history: answered by the
    /// same server process as when they were marked, or the log holding the marked changes as
    /// they were. Read in the caller's transaction.
    private static func historyHeld(
        by indexes: [String: IndexCoverage], server: String, _ connection: PostgresConnection, logger: Logger
    ) async throws -> Set<String> {
        let unconfirmed = indexes.values.compactMap(\.mark).filter { $0.server != server }.compactMap(\.loggedRange)
        var log: [StoredChange] = []
        if let first = unconfirmed.map(\.lowerBound).min(), let last = unconfirmed.map(\.upperBound).max() {
            // At most the log's `history` rows, whatever the range.
            let rows = try await connection.query(
                "SELECT collection, kind, id, body, seq FROM signalbox_change WHERE seq BETWEEN \(first) AND \(last) ORDER BY seq",
                logger: logger)
            for try await row in rows.decode((String, String, String, String?, Int64).self) { log.append(change(row)) }
        }
        return Set(indexes.compactMap { name, index in index.mark?.isHistory(ofServer: server, log: log) == true ? name : nil })
    }

    private static func change(_ row: (String, String, String, String?, Int64)) -> StoredChange {
        let (collection, kind, id, body, seq) = row
        return StoredChange(
            collection: collection, kind: StoredChangeKind(rawValue: kind) ?? .document, id: id,
            body: body.map { Data($0.utf8) }, sequence: seq)
    }

    /// Up to `limit` changes after `sequence`, in order, the head when they were read, and which
    /// server answered (``serverIdentity``). The log keeps the latest `history` changes: when the
    /// first one returned is not `sequence + 1` although the head is past it, the caller missed
    /// pruned changes.
    ///
    /// Bounded in time (three commit timeouts), as every read of a follower is: a read that
    /// never returns (a pool waiting on a connection lost to a database restart) would stop
    /// the replica applying; one that fails is retried at the next wake-up.
    ///
    /// The head table is read with `LIMIT 1`: without statistics for it the planner took it for
    /// 2,200 rows and priced this read at 2,200 times the log's `LIMIT`, past `jit_above_cost`.
    ///
    /// `skipping`: sequence numbers after `sequence` the caller holds already (a replica's own
    /// writes, staged once durable): left out of the answer, so their bodies are not sent and decoded
    /// again (a replica read back each of its own writes, some several times while they waited to be applied).
    func changes(after sequence: Int64, limit: Int, skipping: [Int64] = []) async throws -> (head: Int64, changes: [StoredChange], server: String) {
        try await Self.within(timeout * 3, "read the change log", primary) { [self] in
            try await using { client in
                var head: Int64 = 0
                var server = ""
                var changes: [StoredChange] = []
                let statement = ChangeLogReadStatement(sequence: sequence, skipping: skipping, limit: Int64(limit))
                for try await row in try await client.execute(statement, logger: logger) {
                    (head, server) = (row.head, row.server)
                    if let change = row.change { changes.append(change) }
                }
                return (head, changes, server)
            }
        }
    }

    /// Names the server process that answers: its address, port and start time. A standby
    /// promoted in a failover, or a restarted server, answers with another name, and the
    /// follower then checks that the history it served is the store's (``HistoryCheck``).
    static let serverIdentity =
        "coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port(), 0) || '@' || pg_postmaster_start_time()"

    /// The log's changes from `first` through `last` (those it still holds), in order.
    func changes(from first: Int64, through last: Int64) async throws -> [StoredChange] {
        try await Self.within(readTimeout, "read the change log", primary) { [self] in
            try await using { client in
                var changes: [StoredChange] = []
                let rows = try await client.query(
                    """
                    SELECT collection, kind, id, body, seq FROM signalbox_change
                    WHERE seq BETWEEN \(first) AND \(last) ORDER BY seq
                    """, logger: logger)
                for try await row in rows.decode((String, String, String, String?, Int64).self) { changes.append(Self.change(row)) }
                return changes
            }
        }
    }

    /// The stored row of each of `keys` (collection and document id) that has one: its latest
    /// write (a nil body for a delete).
    func documents(keys: [DocumentKey]) async throws -> [StoredChange] {
        guard !keys.isEmpty else { return [] }
        let collections = keys.map(\.collection), ids = keys.map(\.id)
        return try await Self.within(readTimeout, "read documents", primary) { [self] in
            try await using { client in
                var found: [StoredChange] = []
                let rows = try await client.query(
                    """
                    SELECT d.collection, d.id, d.body, d.seq FROM signalbox_document d
                    JOIN unnest(\(collections)::text[], \(ids)::text[]) AS k(collection, id)
                    ON d.collection = k.collection AND d.id = k.id
                    """, logger: logger)
                for try await (collection, id, body, seq) in rows.decode((String, String, String?, Int64).self) {
                    found.append(StoredChange(collection: collection, id: id, body: body.map { Data($0.utf8) }, sequence: seq))
                }
                return found
            }
        }
    }

    /// The stored schema of each of `names` that has one (a collection deleted has none).
    func collections(named names: [String]) async throws -> [StoredCollection] {
        guard !names.isEmpty else { return [] }
        return try await Self.within(readTimeout, "read collections", primary) { [self] in
            try await using { client in
                var found: [StoredCollection] = []
                let rows = try await client.query(
                    "SELECT name, schema, seq FROM signalbox_collection WHERE name = ANY(\(names)::text[])", logger: logger)
                for try await (name, schema, seq) in rows.decode((String, String, Int64).self) {
                    found.append(StoredCollection(name: name, schema: Data(schema.utf8), sequence: seq))
                }
                return found
            }
        }
    }

    /// The newest sequence number committed.
    func head() async throws -> Int64 {
        try await Self.within(timeout, "read the head", primary) { [self] in
            try await using { client in
                var head: Int64 = 0
                for try await found in try await client.query("SELECT head FROM signalbox_meta", logger: logger).decode(Int64.self) {
                    head = found
                }
                return head
            }
        }
    }

    /// Where the listener connects: the host the writes go to, where their NOTIFYs are sent.
    func listenerConfiguration() async throws -> (PostgresConnection.Configuration, PostgresURL.Host) {
        let host = try await primary.host()
        return (try url.connectionConfiguration(for: host), host)
    }

    // MARK: Writes

    func commit(_ write: StoreWrite, committed: (@Sendable (Int64) -> Void)?) async throws -> Int64 {
        switch write {
        case .upsert(let collection, let id, let body):
            // Within the commit's limit by the group (one timer per group, not a task and a timer per write).
            try await upserts.submit(
                PostgresUpsert(collection: collection, id: id, body: String(decoding: body, as: UTF8.self)), committed: committed)
        case .delete, .putSchema, .dropCollection:
            try await Self.within(timeout, "commit", primary) { [self] in try await commitAlone(write, committed: committed) }
        }
    }

    /// An import's batch: one statement, one transaction, consecutive numbers in order.
    func commit(batch: [StoreWrite]) async throws -> Int64 {
        let upserts = batch.compactMap { write -> PostgresUpsert? in
            guard case .upsert(let collection, let id, let body) = write else { return nil }
            return PostgresUpsert(collection: collection, id: id, body: String(decoding: body, as: UTF8.self))
        }
        precondition(upserts.count == batch.count, "a batch holds upserts only")
        guard !upserts.isEmpty else { return try await head() + 1 }
        return try await Self.within(timeout * 4, "commit an import's batch", primary) { [primary, history, origin, logger] in
            try await Self.using(primary) { client in
                try await Self.upsertGroup(upserts, client: client, history: history, origin: origin, logger: logger)
            }
        }
    }

    /// Prunes the change log: it keeps the newest `history` changes, and every change of the
    /// last minute, so a follower still reading an import's batches finds them all in the log
    /// (and its clients get every event) instead of catching up from the documents.
    ///
    /// Bounded by the oldest change of the last minute (found through the primary key, first in
    /// order): the changes are numbered in commit order, so the older ones are those before it. As
    /// `seq <= head - history AND committed_at < ...` it visited every change of the last minute on
    /// every commit (a sequential scan: 9-23 ms for 60,000 of them, 0.04 ms this way), under the
    /// head's row lock, which every other commit waits for. Should the clock step back, changes stay
    /// longer, never less.
    static func prune(head: String, history: String) -> String {
        """
        DELETE FROM signalbox_change WHERE seq <= least(\(head) - \(history), coalesce((
            SELECT seq FROM signalbox_change WHERE committed_at >= now() - interval '1 minute' ORDER BY seq LIMIT 1), \(head) + 1) - 1)
        """
    }

    /// One statement for a whole group of upserts (``GroupCommit``): one round trip, one
    /// transaction, one WAL flush. The group takes `count` numbers after the head at once;
    /// each row's number is its place in the group, and a document written twice in one group
    /// keeps its later version.
    private static func upsertGroup(
        _ writes: [PostgresUpsert], client: PostgresClient, history: Int64, origin: String, logger: Logger
    ) async throws -> Int64 {
        try await client.withConnection { connection in
            try await upsertGroup(writes, connection: connection, history: history, origin: origin, logger: logger)
        }
    }

    /// ``upsertGroup(_:client:history:origin:logger:)`` on a connection held already (``CommitSession``).
    private static func upsertGroup(
        _ writes: [PostgresUpsert], connection: PostgresConnection, history: Int64, origin: String, logger: Logger
    ) async throws -> Int64 {
        let statement = upsertGroupStatement(writes, history: history, origin: origin)
        for try await head in try await connection.execute(statement, logger: logger) { return head - Int64(writes.count) + 1 }
        throw StoreError.unavailable(detail: "the commit returned no sequence number")
    }

    private static func upsertGroupStatement(_ writes: [PostgresUpsert], history: Int64, origin: String) -> UpsertGroupStatement {
        UpsertGroupStatement(
            collections: writes.map(\.collection), ids: writes.map(\.id), bodies: writes.map(\.body), history: history,
            notifyTail: ChangeNotification.tail(for: writes.map { (.document, $0.collection, $0.id, $0.body) }, origin: origin))
    }

    /// A delete, a schema or a dropped collection: a transaction of its own. The head's row
    /// lock comes first, so the existence check that follows sees every delete committed before it.
    private func commitAlone(_ write: StoreWrite, committed: (@Sendable (Int64) -> Void)?) async throws -> Int64 {
        try await using { client in try await client.withConnection { [history, origin, logger] connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                var head: Int64 = 0
                for try await found in try await connection.query(
                    "UPDATE signalbox_meta SET head = head + 1 RETURNING head", logger: logger
                ).decode(Int64.self) { head = found }
                let collection = write.collection, id = write.id, body = write.body.map { String(decoding: $0, as: UTF8.self) }
                switch write {
                case .delete(_, _, let inBaseData):
                    var live = inBaseData
                    for try await stored in try await connection.query(
                        "SELECT body IS NOT NULL FROM signalbox_document WHERE collection = \(collection) AND id = \(id)", logger: logger
                    ).decode(Bool.self) { live = stored }
                    guard live else { throw DocumentNotFound(id: id) }
                    try await connection.query(
                        """
                        INSERT INTO signalbox_document (collection, id, body, seq) VALUES (\(collection), \(id), NULL, \(head))
                        ON CONFLICT (collection, id) DO UPDATE SET body = NULL, seq = excluded.seq
                        """, logger: logger)
                case .putSchema(_, let schema):
                    try await connection.query(
                        """
                        INSERT INTO signalbox_collection (name, schema, seq) VALUES (\(collection), \(String(decoding: schema, as: UTF8.self)), \(head))
                        ON CONFLICT (name) DO UPDATE SET schema = excluded.schema, seq = excluded.seq
                        """, logger: logger)
                case .dropCollection(_, let alsoRemoving):
                    try await connection.query("DELETE FROM signalbox_collection WHERE name = \(collection)", logger: logger)
                    try await connection.query("DELETE FROM signalbox_document WHERE collection = \(collection)", logger: logger)
                    for key in alsoRemoving {
                        try await connection.query(
                            "DELETE FROM signalbox_document WHERE collection = \(key.collection) AND id = \(key.id)", logger: logger)
                    }
                case .upsert:
                    preconditionFailure("upserts are committed in groups")
                }
                try await connection.query(
                    """
                    WITH c AS (INSERT INTO signalbox_change (seq, collection, kind, id, body)
                               VALUES (\(head), \(collection), \(write.kind.rawValue), \(id), \(body))),
                    p AS (\(unescaped: Self.prune(head: String(head), history: String(history))))
                    SELECT pg_notify('\(unescaped: Self.channel)', \(String(head) + ChangeNotification.tail(for: [(write.kind, collection, id, body)], origin: origin)))
                    """, logger: logger)
                try await connection.query("COMMIT", logger: logger)
                committed?(head)
                return head
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        } }
    }

    /// Runs `work`, or throws `StoreError.unavailable` once `limit` has passed: a database that
    /// does not answer must not hold a client for longer. A commit cut off this way may still
    /// land; the follower applies it then, and a retried PUT is harmless.
    ///
    /// It returns at the limit without waiting for `work` to end (a task group would): a request
    /// that postgres-nio's pool never answered, cancelled or not, once held a replica's change-log
    /// reads for good after `pg_ctl restart` (the cluster test's storm, 1 run in 4). `primary` then
    /// gets a new pool for the next query (``PostgresPrimary/timedOut()``).
    static func within<T: Sendable>(
        _ limit: Duration, _ what: String, _ primary: PostgresPrimary?, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let waiting = Locked<CheckedContinuation<T, any Error>?>(nil)
        let running = Locked<Task<Void, Never>?>(nil)
        let finish: @Sendable (Result<T, any Error>) -> Bool = { result in
            guard let continuation = waiting.withLock({ waiting in defer { waiting = nil }; return waiting }) else { return false }
            continuation.resume(with: result)
            return true
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                waiting.withLock { $0 = continuation }
                let task = Task {
                    do {
                        _ = finish(.success(try await work()))
                    } catch {
                        _ = finish(.failure(Self.storeError(error)))
                    }
                }
                running.withLock { $0 = task }
                let nanoseconds = Int(clamping: limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000)
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                    guard finish(.failure(StoreError.unavailable(detail: "PostgreSQL did not \(what) within \(limit)"))) else { return }
                    task.cancel()
                    primary?.timedOut()
                }
            }
        } onCancel: {
            if finish(.failure(CancellationError())) { running.withLock { $0 }?.cancel() }
        }
    }

    /// What a caller is told: the errors of the store's own kinds as they are, any other as unavailable.
    private static func storeError(_ error: any Error) -> any Error {
        switch error {
        case is DocumentNotFound, is StoreError, is ClusterStartError, is CancellationError: error
        default: StoreError.unavailable(detail: "\(String(reflecting: error))")
        }
    }
}

/// One upsert waiting for its group's commit.
struct PostgresUpsert: Sendable {
    let collection: String
    let id: String
    let body: String
}
