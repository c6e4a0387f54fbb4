import Dispatch
import Foundation
import GRDB

/// The single-node store: one SQLite file (through GRDB), the default.
///
/// It keeps the latest write per document id, and the newest changes in a change log
/// (`history` of them) so a restarted server serves `Last-Event-ID` resumes from before
/// the restart. Each write commits with
/// `synchronous = FULL` in WAL mode before it returns, so a write that was
/// answered is on disk even if the process is killed right after.
final class SQLiteStore: DocumentStore {
    private let database: DatabaseQueue
    /// Commits wait for the disk here, not on Swift's small cooperative thread pool.
    private let writer = DispatchQueue(label: "signalbox.sqlite.writer")
    /// Changes kept in the change log.
    private let history: Int64

    /// Opens (and creates if needed) the store at `path`; a file that cannot be used (or a
    /// directory that does not exist) is a ``StoreStartError``. The change log keeps the
    /// newest `history` changes.
    init(path: String, history: Int = 1_024) throws(StoreStartError) {
        self.history = Int64(max(history, 1))
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        try SQLiteStoreChecks.checkBeforeOpening(path)
        do {
            try SQLiteStoreChecks.quickCheck(path)
            database = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch {
            throw SQLiteStoreChecks.startError(error, path: path)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "document") { table in
                table.primaryKey("id", .text)
                table.column("body", .blob)
                table.column("sequence", .integer).notNull().unique()
            }
        }
        migrator.registerMigration("v2: epoch") { db in
            try db.create(table: "meta") { table in
                table.column("epoch", .text).notNull()
            }
            try db.execute(sql: "INSERT INTO meta (epoch) VALUES (?)", arguments: [UUID().uuidString.lowercased()])
        }
        // Starts empty on an upgraded store: resumes from before the upgrade get a reset, as before.
        migrator.registerMigration("v3: change log") { db in
            try db.create(table: "change") { table in
                table.primaryKey("sequence", .integer)
                table.column("id", .text).notNull()
                table.column("body", .blob)
            }
        }
        return migrator
    }

    func snapshot() async throws -> StoreSnapshot {
        try await database.read { db in
            let documents = try Row.fetchAll(db, sql: "SELECT id, body, sequence FROM document ORDER BY sequence").map {
                StoredChange(id: $0["id"], body: $0["body"], sequence: $0["sequence"])
            }
            let epoch = try String.fetchOne(db, sql: "SELECT epoch FROM meta") ?? ""
            let recent = try Row.fetchAll(
                db, sql: "SELECT id, body, sequence FROM change ORDER BY sequence DESC LIMIT ?", arguments: [history]
            ).reversed().map { StoredChange(id: $0["id"], body: $0["body"], sequence: $0["sequence"]) }
            return StoreSnapshot(documents: documents, head: documents.last?.sequence ?? 0, epoch: epoch, recentChanges: recent)
        }
    }

    func commit(_ write: StoreWrite) async throws -> Int64 {
        try await withCheckedThrowingContinuation { continuation in
            writer.async { continuation.resume(with: Result { try self.write(write) }) }
        }
    }

    /// Commits `write` on the calling thread; returns its sequence number. A full disk is
    /// ``StoreError/full(detail:)``, other I/O failures ``StoreError/unavailable(detail:)``.
    func write(_ write: StoreWrite) throws -> Int64 {
        do {
            return try insert(write)
        } catch let missing as DocumentNotFound {
            throw missing
        } catch {
            throw SQLiteStoreChecks.writeError(error)
        }
    }

    private func insert(_ write: StoreWrite) throws -> Int64 {
        try database.write { db in
            if case .delete(let id, let inBaseData) = write {
                let stored = try Row.fetchOne(db, sql: "SELECT body IS NOT NULL AS live FROM document WHERE id = ?", arguments: [id])
                guard stored.map({ $0["live"] as Bool }) ?? inBaseData else { throw DocumentNotFound(id: id) }
            }
            let next = (try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM document") ?? 0) + 1
            try db.execute(
                sql: """
                    INSERT INTO document (id, body, sequence) VALUES (?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET body = excluded.body, sequence = excluded.sequence
                    """,
                arguments: [write.id, write.body, next]
            )
            try db.execute(
                sql: "INSERT INTO change (sequence, id, body) VALUES (?, ?, ?)", arguments: [next, write.id, write.body])
            try db.execute(sql: "DELETE FROM change WHERE sequence <= ?", arguments: [next - history])
            return next
        }
    }

    func close() async {}

    /// Runs SQLite's `PRAGMA integrity_check`; true when it answers `ok`.
    func integrityCheck() throws -> Bool {
        try database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok" }
    }
}
