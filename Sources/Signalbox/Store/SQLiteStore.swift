import Base
import Dispatch
import Foundation
import GRDB

/// The single-node store: one SQLite file (through GRDB), the default.
///
/// It keeps the collections' schemas, the latest write per document of each collection,
/// a head counter, and the newest changes in a change log (`history` of them) so a
/// restarted server serves `Last-Event-ID` resumes from before the restart. Each write
/// commits with `synchronous = FULL` in WAL mode before it returns, so a write that was
/// answered is on disk even if the process is killed right after.
///
/// Upserts are committed in groups (``GroupCommit``): the ones that arrive while a group is on
/// the disk go together in the next transaction, so concurrent writers share one fsync.
final class SQLiteStore: DocumentStore {
    /// Most upserts in one group transaction.
    static let maxGroup = 256

    private let database: DatabaseQueue
    /// Commits wait for the disk here, not on Swift's small cooperative thread pool.
    private let writer = DispatchQueue(label: "signalbox.sqlite.writer")
    /// Changes kept in the change log.
    private let history: Int64
    /// Upserts that arrive while one group commits go together in the next.
    private let upserts: GroupCommit<StoreWrite>
    /// The database as the group commits reach it, let go at `deinit`: a group's task may outlive
    /// the store by a moment, and the file stays locked while a connection is open (a store
    /// reopened at once found it locked).
    private let open: Locked<DatabaseQueue?>

    /// Opens (and creates if needed) the store at `path`; a file that cannot be used (or a
    /// directory that does not exist) is a ``StoreStartError``. The change log keeps the
    /// newest `history` changes.
    init(path: String, history: Int = 1_024) throws(StoreStartError) {
        let history = Int64(max(history, 1))
        self.history = history
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        try SQLiteStoreChecks.checkBeforeOpening(path)
        do {
            try SQLiteStoreChecks.quickCheck(path)
            database = try DatabaseQueue(path: path, configuration: configuration)
            try SQLiteStoreMigrations.migrate(database, history: history)
        } catch {
            throw SQLiteStoreChecks.startError(error, path: path)
        }
        let open = Locked<DatabaseQueue?>(database)
        self.open = open
        upserts = GroupCommit(maxBatch: Self.maxGroup) { [open, writer = self.writer] writes in
            try await withCheckedThrowingContinuation { continuation in
                writer.async {
                    continuation.resume(with: Result {
                        guard let database = open.withLock({ $0 }) else { throw StoreError.unavailable(detail: "the store is closed") }
                        return try Self.write(writes, to: database, history: history)
                    })
                }
            }
        }
    }

    deinit {
        open.withLock { $0 = nil }
    }

    func snapshot(reusing indexes: [String: IndexCoverage]) async throws -> StoreSnapshot {
        try await database.read { db in
            let meta = try Row.fetchOne(db, sql: "SELECT epoch, head FROM meta")
            let head: Int64 = meta?["head"] ?? 0, epoch: String = meta?["epoch"] ?? ""
            let collections = try Row.fetchAll(db, sql: "SELECT name, schema, sequence FROM collection ORDER BY name").map {
                StoredCollection(name: $0["name"], schema: $0["schema"], sequence: $0["sequence"])
            }
            var covered: [String: Int64] = [:]
            for stored in collections {
                if let index = indexes[stored.name], index.fits(stored, head: head, epoch: epoch) { covered[stored.name] = index.sequence }
            }
            let recent = try Row.fetchAll(
                db, sql: "SELECT collection, kind, id, body, sequence FROM change ORDER BY sequence DESC LIMIT ?", arguments: [history]
            ).reversed().map(Self.change)
            return StoreSnapshot(
                documents: try Self.documents(db, covered: covered), head: head, epoch: epoch, recentChanges: recent,
                collections: collections, covered: covered, historyHeld: Set(indexes.keys))
        }
    }

    /// The latest write of every document, oldest first; of a `covered` collection only those
    /// after its sequence. The others are read by ranges of the primary key around the covered
    /// names, the covered ones by the sequence index (`+collection` keeps SQLite off the primary
    /// key there): the million rows of a collection whose index was loaded are never visited.
    private static func documents(_ db: Database, covered: [String: Int64]) throws -> [StoredChange] {
        // Read through a cursor by column index: a million rows at start, with no array of rows
        // beside the changes and no column looked up by name per row.
        var documents: [StoredChange] = []
        func read(_ sql: String, _ arguments: StatementArguments) throws {
            let rows = try Row.fetchCursor(db, sql: "SELECT collection, id, body, sequence FROM document " + sql, arguments: arguments)
            while let row = try rows.next() {
                documents.append(StoredChange(collection: row[0], id: row[1], body: row[2], sequence: row[3]))
            }
        }
        let names = covered.keys.sorted()
        guard let first = names.first, let last = names.last else {
            documents.reserveCapacity(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") ?? 0)
            try read("ORDER BY sequence", [])
            return documents
        }
        try read("WHERE collection < ?", [first])
        for (below, above) in zip(names, names.dropFirst()) { try read("WHERE collection > ? AND collection < ?", [below, above]) }
        try read("WHERE collection > ?", [last])
        for name in names { try read("WHERE +collection = ? AND sequence > ?", [name, covered[name]!]) }
        documents.sort { $0.sequence < $1.sequence }
        return documents
    }

    private static func change(_ row: Row) -> StoredChange {
        StoredChange(
            collection: row["collection"], kind: StoredChangeKind(rawValue: row["kind"]) ?? .document, id: row["id"],
            body: row["body"], sequence: row["sequence"])
    }

    /// An upsert goes with the others that arrive with it (one transaction); a delete (which
    /// may fail alone, with ``DocumentNotFound``) and a schema change are committed by themselves.
    func commit(_ write: StoreWrite, committed: (@Sendable (Int64) -> Void)?) async throws -> Int64 {
        if case .upsert = write { return try await upserts.submit(write, committed: committed) }
        let sequence = try await commit(batch: [write])
        committed?(sequence)
        return sequence
    }

    func commit(batch: [StoreWrite]) async throws -> Int64 {
        try await withCheckedThrowingContinuation { continuation in
            writer.async { [database, history] in continuation.resume(with: Result { try Self.write(batch, to: database, history: history) }) }
        }
    }

    /// Commits `writes` in one transaction on the calling thread; returns the first one's
    /// sequence number. A full disk is ``StoreError/full(detail:)``, other I/O failures
    /// ``StoreError/unavailable(detail:)``.
    func write(_ writes: [StoreWrite]) throws -> Int64 {
        try Self.write(writes, to: database, history: history)
    }

    private static func write(_ writes: [StoreWrite], to database: DatabaseQueue, history: Int64) throws -> Int64 {
        do {
            return try database.write { db in try insert(writes, db, history: history) }
        } catch let missing as DocumentNotFound {
            throw missing
        } catch {
            throw SQLiteStoreChecks.writeError(error)
        }
    }

    private static let documentRows = SQLiteRowInsert.Statements(
        "INSERT INTO document (collection, id, body, sequence)", columns: 4,
        "ON CONFLICT(collection, id) DO UPDATE SET body = excluded.body, sequence = excluded.sequence")
    private static let changeRows = SQLiteRowInsert.Statements("INSERT INTO change (sequence, collection, kind, id, body)", columns: 5)

    private static func insert(_ writes: [StoreWrite], _ db: Database, history: Int64) throws -> Int64 {
        // Every statement of a commit is compiled once per connection (GRDB's statement cache): a
        // group's transaction parsed three statements anew each time (a fifth of a PUT's instructions).
        let head = try Int64.fetchOne(db.cachedStatement(sql: "SELECT head FROM meta")) ?? 0
        var sequence = head
        let logFrom = head + Int64(writes.count) - history  // only the newest `history` go to the log
        // Document and log rows are written many to a statement (``SQLiteRowInsert``); both are
        // flushed before a delete or a collection change reads or removes documents.
        var documents = SQLiteRowInsert(db, documentRows)
        var log = SQLiteRowInsert(db, changeRows)
        for write in writes {
            sequence += 1
            if case .upsert(let collection, let id, let body) = write {
                documents.append(text: collection)
                documents.append(text: id)
                documents.append(blob: body)
                documents.append(integer: sequence)
                try documents.endRow()
            } else {
                try documents.flush()
                try log.flush()
                try writeAlone(write, db, sequence: sequence)
            }
            if sequence > logFrom {
                log.append(integer: sequence)
                log.append(text: write.collection)
                log.append(text: write.kind.rawValue)
                log.append(text: write.id)
                log.append(blob: write.body)
                try log.endRow()
            }
        }
        try documents.flush()
        try log.flush()
        try db.cachedStatement(sql: "UPDATE meta SET head = ?").execute(arguments: [sequence])
        try db.cachedStatement(sql: "DELETE FROM change WHERE sequence <= ?").execute(arguments: [sequence - history])
        return head + 1
    }

    /// Writes a delete or a collection's change (not an upsert: those go in batches) at `sequence`.
    private static func writeAlone(_ write: StoreWrite, _ db: Database, sequence: Int64) throws {
        switch write {
        case .upsert:
            preconditionFailure("upserts are written by SQLiteRowInsert")
        case .delete(let collection, let id, let inBaseData):
            let stored = try Row.fetchOne(
                db, sql: "SELECT body IS NOT NULL AS live FROM document WHERE collection = ? AND id = ?", arguments: [collection, id])
            guard stored.map({ $0["live"] as Bool }) ?? inBaseData else { throw DocumentNotFound(id: id) }
            try db.execute(
                sql: """
                    INSERT INTO document (collection, id, body, sequence) VALUES (?, ?, NULL, ?)
                    ON CONFLICT(collection, id) DO UPDATE SET body = NULL, sequence = excluded.sequence
                    """,
                arguments: [collection, id, sequence])
        case .putSchema(let collection, let schema):
            try db.execute(
                sql: """
                    INSERT INTO collection (name, schema, sequence) VALUES (?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET schema = excluded.schema, sequence = excluded.sequence
                    """,
                arguments: [collection, schema, sequence])
        case .dropCollection(let collection, let alsoRemoving):
            try db.execute(sql: "DELETE FROM collection WHERE name = ?", arguments: [collection])
            try db.execute(sql: "DELETE FROM document WHERE collection = ?", arguments: [collection])
            for key in alsoRemoving {
                try db.execute(sql: "DELETE FROM document WHERE collection = ? AND id = ?", arguments: [key.collection, key.id])
            }
        }
    }

    func close() async {}

    /// Runs SQLite's `PRAGMA integrity_check`; true when it answers `ok`.
    func integrityCheck() throws -> Bool {
        try database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok" }
    }
}
