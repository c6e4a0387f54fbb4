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
    /// The channel a commit notifies: a wake-up only, the change log is the truth.
    static let channel = "signalbox_change"

    let url: PostgresURL
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    /// Changes kept in the log for followers and `Last-Event-ID` resumes.
    private let history: Int64
    /// How long a commit may take before it answers `StoreError.unavailable`.
    private let timeout: Duration
    private let logger: Logger
    /// Upserts that arrive while one commits go together in the next.
    private let upserts: GroupCommit<PostgresUpsert>

    /// Connects, creates or migrates the schema, and checks that this replica serves the same base data as the others.
    init(url: PostgresURL, baseDigest: String, history: Int, timeout: Duration, logger: Logger) async throws {
        self.url = url
        self.history = Int64(max(history, 1))
        self.timeout = timeout
        self.logger = logger
        // postgres-nio logs every failed connection attempt; the follower reports an outage once.
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: quiet)
        let client = self.client
        // The group has the commit's time limit too, so a group stuck waiting for a connection
        // is given up (and never committed) rather than landing after its clients heard 503.
        upserts = GroupCommit(maxBatch: 256) { [history = self.history] writes in
            try await Self.within(timeout, "commit") {
                try await Self.upsertGroup(writes, client: client, history: history, logger: logger)
            }
        }
        runner = Task { await client.run() }
        do {
            // Starting is not a client waiting: give a slow or busy database longer than a commit gets.
            try await Self.within(max(timeout * 3, .seconds(15)), "connect to \(url)") { [self] in
                try await migrate(baseDigest: baseDigest)
            }
        } catch {
            runner.cancel()
            throw error
        }
    }

    deinit { runner.cancel() }

    func close() async {
        runner.cancel()
    }

    // MARK: Schema

    private func migrate(baseDigest: String) async throws {
        try await client.withConnection { connection in
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
        }
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

    func snapshot() async throws -> StoreSnapshot {
        try await consistentRead(changedAfter: 0)
    }

    /// The documents written after `sequence` (their latest write each), the head they add up to
    /// and the log's newest changes: how a follower catches up once the log no longer holds
    /// every change it missed.
    func documents(changedAfter sequence: Int64) async throws -> StoreSnapshot {
        try await Self.within(timeout * 10, "read the documents") { [self] in try await consistentRead(changedAfter: sequence) }
    }

    private func consistentRead(changedAfter sequence: Int64) async throws -> StoreSnapshot {
        try await client.withConnection { connection in
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
                    "SELECT collection, id, body, seq FROM signalbox_document WHERE seq > \(sequence) ORDER BY seq", logger: logger)
                for try await (collection, id, body, seq) in rows.decode((String, String, String?, Int64).self) {
                    documents.append(StoredChange(collection: collection, id: id, body: body.map { Data($0.utf8) }, sequence: seq))
                }
                var recent: [StoredChange] = []
                let log = try await connection.query(
                    "SELECT collection, kind, id, body, seq FROM signalbox_change ORDER BY seq DESC LIMIT \(history)", logger: logger)
                for try await row in log.decode((String, String, String, String?, Int64).self) { recent.append(Self.change(row)) }
                var collections: [StoredCollection] = []
                let schemas = try await connection.query(
                    "SELECT name, schema, seq FROM signalbox_collection ORDER BY name", logger: logger)
                for try await (name, schema, seq) in schemas.decode((String, String, Int64).self) {
                    collections.append(StoredCollection(name: name, schema: Data(schema.utf8), sequence: seq))
                }
                try await connection.query("COMMIT", logger: logger)
                return StoreSnapshot(
                    documents: documents, head: head, epoch: epoch, recentChanges: recent.reversed(), collections: collections)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    private static func change(_ row: (String, String, String, String?, Int64)) -> StoredChange {
        let (collection, kind, id, body, seq) = row
        return StoredChange(
            collection: collection, kind: StoredChangeKind(rawValue: kind) ?? .document, id: id,
            body: body.map { Data($0.utf8) }, sequence: seq)
    }

    /// Up to `limit` changes after `sequence`, in order, and the head when they were read.
    /// The log keeps the latest `history` changes: when the first one returned is not
    /// `sequence + 1` although the head is past it, the caller missed pruned changes.
    ///
    /// Bounded in time (three commit timeouts), as every read of a follower is: a read that
    /// never returns (a pool waiting on a connection lost to a database restart) would stop
    /// the replica applying; one that fails is retried at the next wake-up.
    func changes(after sequence: Int64, limit: Int) async throws -> (head: Int64, changes: [StoredChange]) {
        try await Self.within(timeout * 3, "read the change log") { [self] in try await readChanges(after: sequence, limit: limit) }
    }

    private func readChanges(after sequence: Int64, limit: Int) async throws -> (head: Int64, changes: [StoredChange]) {
        let rows = try await client.query(
            """
            SELECT m.head, c.seq, c.collection, c.kind, c.id, c.body FROM signalbox_meta m
            LEFT JOIN LATERAL (
                SELECT seq, collection, kind, id, body FROM signalbox_change WHERE seq > \(sequence) ORDER BY seq LIMIT \(limit)
            ) c ON true ORDER BY c.seq
            """, logger: logger)
        var head: Int64 = 0
        var changes: [StoredChange] = []
        for try await (found, seq, collection, kind, id, body) in rows.decode((Int64, Int64?, String?, String?, String?, String?).self) {
            head = found
            if let seq, let collection, let kind, let id { changes.append(Self.change((collection, kind, id, body, seq))) }
        }
        return (head, changes)
    }

    /// The newest sequence number committed.
    func head() async throws -> Int64 {
        var head: Int64 = 0
        for try await found in try await client.query("SELECT head FROM signalbox_meta", logger: logger).decode(Int64.self) {
            head = found
        }
        return head
    }

    // MARK: Writes

    func commit(_ write: StoreWrite) async throws -> Int64 {
        try await Self.within(timeout, "commit") { [self] in
            switch write {
            case .upsert(let collection, let id, let body):
                try await upserts.submit(PostgresUpsert(collection: collection, id: id, body: String(decoding: body, as: UTF8.self)))
            case .delete, .putSchema, .dropCollection:
                try await commitAlone(write)
            }
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
        return try await Self.within(timeout * 4, "commit an import's batch") { [client, history, logger] in
            try await Self.upsertGroup(upserts, client: client, history: history, logger: logger)
        }
    }

    /// Prunes the change log: it keeps the newest `history` changes, and every change of the
    /// last minute, so a follower still reading an import's batches finds them all in the log
    /// (and its clients get every event) instead of catching up from the documents.
    private static func prune(head: String, history: Int64) -> String {
        "DELETE FROM signalbox_change WHERE seq <= \(head) - \(history) AND committed_at < now() - interval '1 minute'"
    }

    /// One statement for a whole group of upserts (``GroupCommit``): one round trip, one
    /// transaction, one WAL flush. The group takes `count` numbers after the head at once;
    /// each row's number is its place in the group, and a document written twice in one group
    /// keeps its later version.
    private static func upsertGroup(
        _ writes: [PostgresUpsert], client: PostgresClient, history: Int64, logger: Logger
    ) async throws -> Int64 {
        let collections = writes.map(\.collection), ids = writes.map(\.id), bodies = writes.map(\.body)
        let count = Int64(writes.count)
        let rows = try await client.query(
            """
            WITH h AS (UPDATE signalbox_meta SET head = head + \(count) RETURNING head),
            w AS (SELECT (SELECT head FROM h) - \(count) + t.ord AS seq, t.collection, t.id, t.body
                  FROM unnest(\(collections)::text[], \(ids)::text[], \(bodies)::text[])
                  WITH ORDINALITY AS t(collection, id, body, ord)),
            d AS (INSERT INTO signalbox_document (collection, id, body, seq)
                  SELECT DISTINCT ON (collection, id) collection, id, body, seq FROM w ORDER BY collection, id, seq DESC
                  ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body, seq = excluded.seq),
            c AS (INSERT INTO signalbox_change (seq, collection, kind, id, body) SELECT seq, collection, 'document', id, body FROM w),
            p AS (\(unescaped: prune(head: "(SELECT head FROM h)", history: history)))
            SELECT head, pg_notify('\(unescaped: Self.channel)', head::text)::text FROM h
            """, logger: logger)
        for try await (head, _) in rows.decode((Int64, String).self) { return head - count + 1 }
        throw StoreError.unavailable(detail: "the commit returned no sequence number")
    }

    /// A delete, a schema or a dropped collection: a transaction of its own. The head's row
    /// lock comes first, so the existence check that follows sees every delete committed before it.
    private func commitAlone(_ write: StoreWrite) async throws -> Int64 {
        try await client.withConnection { [history, logger] connection in
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
                case .dropCollection:
                    try await connection.query("DELETE FROM signalbox_collection WHERE name = \(collection)", logger: logger)
                    try await connection.query("DELETE FROM signalbox_document WHERE collection = \(collection)", logger: logger)
                case .upsert:
                    preconditionFailure("upserts are committed in groups")
                }
                try await connection.query(
                    """
                    WITH c AS (INSERT INTO signalbox_change (seq, collection, kind, id, body)
                               VALUES (\(head), \(collection), \(write.kind.rawValue), \(id), \(body))),
                    p AS (\(unescaped: Self.prune(head: String(head), history: history)))
                    SELECT pg_notify('\(unescaped: Self.channel)', \(String(head)))
                    """, logger: logger)
                try await connection.query("COMMIT", logger: logger)
                return head
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Runs `work`, or throws `StoreError.unavailable` once `limit` has passed: a database that
    /// does not answer must not hold a client for longer. A commit cut off this way may still
    /// land; the follower applies it then, and a retried PUT is harmless.
    private static func within<T: Sendable>(_ limit: Duration, _ what: String, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            do {
                guard let first = try await group.next(), let value = first else {
                    throw StoreError.unavailable(detail: "PostgreSQL did not \(what) within \(limit)")
                }
                return value
            } catch let error as DocumentNotFound {
                throw error
            } catch let error as StoreError {
                throw error
            } catch let error as ClusterStartError {
                throw error
            } catch {
                throw StoreError.unavailable(detail: "\(String(reflecting: error))")
            }
        }
    }
}

/// One upsert waiting for its group's commit.
struct PostgresUpsert: Sendable {
    let collection: String
    let id: String
    let body: String
}
