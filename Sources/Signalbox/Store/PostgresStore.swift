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
    static let schemaVersion = 1
    /// The channel a commit notifies: a wake-up only, the change log is the truth.
    static let channel = "signalbox_change"

    let url: PostgresURL
    /// The pool to whichever host of the URL is the primary now.
    let primary: PostgresPrimary
    /// Changes kept in the log for followers and `Last-Event-ID` resumes.
    private let history: Int64
    /// How long a commit may take before it answers `StoreError.unavailable`.
    private let timeout: Duration
    private let logger: Logger
    /// Upserts that arrive while one commits go together in the next.
    private let upserts: GroupCommit<(id: String, body: String)>

    /// Connects, creates or migrates the schema, and checks that this replica serves the same base data as the others.
    init(url: PostgresURL, baseDigest: String, history: Int, timeout: Duration, logger: Logger) async throws {
        self.url = url
        self.history = Int64(max(history, 1))
        self.timeout = timeout
        self.logger = logger
        let primary = PostgresPrimary(url: url, logger: logger)
        self.primary = primary
        // The group has the commit's time limit too, so a group stuck waiting for a connection
        // is given up (and never committed) rather than landing after its clients heard 503.
        upserts = GroupCommit(maxBatch: 256) { [history = self.history] writes in
            try await Self.within(timeout, "commit", primary) {
                try await Self.using(primary) { client in
                    try await Self.upsertGroup(writes, client: client, history: history, logger: logger)
                }
            }
        }
        do {
            // Starting is not a client waiting: give a slow or busy database longer than a commit gets.
            try await Self.within(max(timeout * 3, .seconds(15)), "connect to \(url)", nil) { [self] in
                try await migrate(baseDigest: baseDigest)
            }
        } catch {
            primary.close()
            throw error
        }
    }

    deinit { primary.close() }

    func close() async {
        primary.close()
    }

    /// Runs `work` on the primary's pool; a failure that points at the server has its host checked again.
    private static func using<T: Sendable>(_ primary: PostgresPrimary, _ work: (PostgresClient) async throws -> T) async throws -> T {
        let lease = try await primary.lease()
        do {
            return try await work(lease.client)
        } catch {
            primary.failed(lease, with: error)
            throw error
        }
    }

    private func using<T: Sendable>(_ work: (PostgresClient) async throws -> T) async throws -> T {
        try await Self.using(primary, work)
    }

    /// How long a read of many rows may take (a host that vanished without closing its
    /// connections holds a read until then); the follower's reads of the log get `timeout`.
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

    // MARK: Reads

    func snapshot() async throws -> StoreSnapshot {
        try await consistentRead(changedAfter: 0)
    }

    /// The documents written after `sequence` (their latest write each), the head they add up to
    /// and the log's newest changes: how a follower catches up once the log no longer holds
    /// every change it missed.
    func documents(changedAfter sequence: Int64) async throws -> StoreSnapshot {
        try await consistentRead(changedAfter: sequence)
    }

    private func consistentRead(changedAfter sequence: Int64) async throws -> StoreSnapshot {
        try await Self.within(snapshotTimeout, "read a snapshot", primary) { [self] in try await using { client in try await client.withConnection { connection in
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                var head: Int64 = 0
                var epoch = ""
                for try await (found, foundEpoch) in try await connection.query(
                    "SELECT head, epoch FROM signalbox_meta", logger: logger
                ).decode((Int64, String).self) {
                    (head, epoch) = (found, foundEpoch)
                }
                var documents: [StoredChange] = []
                let rows = try await connection.query(
                    "SELECT id, body, seq FROM signalbox_document WHERE seq > \(sequence) ORDER BY seq", logger: logger)
                for try await (id, body, seq) in rows.decode((String, String?, Int64).self) {
                    documents.append(StoredChange(id: id, body: body.map { Data($0.utf8) }, sequence: seq))
                }
                var recent: [StoredChange] = []
                let log = try await connection.query(
                    "SELECT id, body, seq FROM signalbox_change ORDER BY seq DESC LIMIT \(history)", logger: logger)
                for try await (id, body, seq) in log.decode((String, String?, Int64).self) {
                    recent.append(StoredChange(id: id, body: body.map { Data($0.utf8) }, sequence: seq))
                }
                try await connection.query("COMMIT", logger: logger)
                return StoreSnapshot(documents: documents, head: head, epoch: epoch, recentChanges: recent.reversed())
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        } } }
    }

    /// Up to `limit` changes after `sequence`, in order, the head when they were read, and which
    /// server answered (``server``). The log keeps the latest `history` changes: when the first one
    /// returned is not `sequence + 1` although the head is past it, the caller missed pruned changes.
    func changes(after sequence: Int64, limit: Int) async throws -> (head: Int64, changes: [StoredChange], server: String) {
        try await Self.within(timeout, "read the change log", primary) { [self] in
            try await using { client in
                let rows = try await client.query(
                    """
                    SELECT m.head, \(unescaped: Self.serverIdentity), c.seq, c.id, c.body FROM signalbox_meta m
                    LEFT JOIN LATERAL (
                        SELECT seq, id, body FROM signalbox_change WHERE seq > \(sequence) ORDER BY seq LIMIT \(limit)
                    ) c ON true ORDER BY c.seq
                    """, logger: logger)
                var head: Int64 = 0
                var server = ""
                var changes: [StoredChange] = []
                for try await (found, answered, seq, id, body) in rows.decode((Int64, String, Int64?, String?, String?).self) {
                    (head, server) = (found, answered)
                    if let seq, let id { changes.append(StoredChange(id: id, body: body.map { Data($0.utf8) }, sequence: seq)) }
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
                    "SELECT seq, id, body FROM signalbox_change WHERE seq BETWEEN \(first) AND \(last) ORDER BY seq", logger: logger)
                for try await (seq, id, body) in rows.decode((Int64, String, String?).self) {
                    changes.append(StoredChange(id: id, body: body.map { Data($0.utf8) }, sequence: seq))
                }
                return changes
            }
        }
    }

    /// The stored row of each of `ids` that has one: its latest write (a nil body for a delete).
    func documents(ids: [String]) async throws -> [StoredChange] {
        try await Self.within(readTimeout, "read documents", primary) { [self] in
            try await using { client in
                var found: [StoredChange] = []
                let rows = try await client.query(
                    "SELECT id, body, seq FROM signalbox_document WHERE id = ANY(\(ids)::text[])", logger: logger)
                for try await (id, body, seq) in rows.decode((String, String?, Int64).self) {
                    found.append(StoredChange(id: id, body: body.map { Data($0.utf8) }, sequence: seq))
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

    func commit(_ write: StoreWrite) async throws -> Int64 {
        try await Self.within(timeout, "commit", primary) { [self] in
            switch write {
            case .upsert(let id, let body): try await upserts.submit((id, String(decoding: body, as: UTF8.self)))
            case .delete(let id, let inBaseData): try await delete(id: id, inBaseData: inBaseData)
            }
        }
    }

    /// One statement for a whole group of upserts (``GroupCommit``): one round trip, one
    /// transaction, one WAL flush. The group takes `count` numbers after the head at once;
    /// each row's number is its place in the group, and a document written twice in one group
    /// keeps its later version.
    private static func upsertGroup(
        _ writes: [(id: String, body: String)], client: PostgresClient, history: Int64, logger: Logger
    ) async throws -> Int64 {
        let ids = writes.map(\.id), bodies = writes.map(\.body), count = Int64(writes.count)
        let rows = try await client.query(
            """
            WITH h AS (UPDATE signalbox_meta SET head = head + \(count) RETURNING head),
            w AS (SELECT (SELECT head FROM h) - \(count) + t.ord AS seq, t.id, t.body
                  FROM unnest(\(ids)::text[], \(bodies)::text[]) WITH ORDINALITY AS t(id, body, ord)),
            d AS (INSERT INTO signalbox_document (id, body, seq)
                  SELECT DISTINCT ON (id) id, body, seq FROM w ORDER BY id, seq DESC
                  ON CONFLICT (id) DO UPDATE SET body = excluded.body, seq = excluded.seq),
            c AS (INSERT INTO signalbox_change (seq, id, body) SELECT seq, id, body FROM w),
            p AS (DELETE FROM signalbox_change WHERE seq <= (SELECT head FROM h) - \(history))
            SELECT head, pg_notify('\(unescaped: Self.channel)', head::text)::text FROM h
            """, logger: logger)
        for try await (head, _) in rows.decode((Int64, String).self) { return head - count + 1 }
        throw StoreError.unavailable(detail: "the commit returned no sequence number")
    }

    /// A transaction of its own: the head's row lock comes first, so the existence check
    /// that follows sees every delete committed before it.
    private func delete(id: String, inBaseData: Bool) async throws -> Int64 {
        try await using { client in try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                var head: Int64 = 0
                for try await found in try await connection.query(
                    "UPDATE signalbox_meta SET head = head + 1 RETURNING head", logger: logger
                ).decode(Int64.self) { head = found }
                var live = inBaseData
                for try await stored in try await connection.query(
                    "SELECT body IS NOT NULL FROM signalbox_document WHERE id = \(id)", logger: logger
                ).decode(Bool.self) { live = stored }
                guard live else { throw DocumentNotFound(id: id) }
                try await connection.query(
                    """
                    WITH d AS (INSERT INTO signalbox_document (id, body, seq) VALUES (\(id), NULL, \(head))
                               ON CONFLICT (id) DO UPDATE SET body = NULL, seq = excluded.seq),
                    c AS (INSERT INTO signalbox_change (seq, id, body) VALUES (\(head), \(id), NULL)),
                    p AS (DELETE FROM signalbox_change WHERE seq <= \(head - history))
                    SELECT pg_notify('\(unescaped: Self.channel)', \(String(head)))
                    """, logger: logger)
                try await connection.query("COMMIT", logger: logger)
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
