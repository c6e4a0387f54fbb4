import Foundation
import GRDB

/// One stored change: the latest write for a document id.
///
/// `body` is the document's JSON, or `nil` when the document was deleted
/// (a tombstone, so a deleted base-data document stays deleted after a restart).
struct StoredChange: Sendable, Equatable {
    var id: String
    var body: Data?
    var sequence: Int64
}

/// The durable record of every write, in SQLite (through GRDB).
///
/// The base data set is not stored: at start the service loads it and applies
/// ``changes()`` on top. Each write commits with `synchronous = FULL` in WAL
/// mode before it returns, so a write that was answered is on disk even if the
/// process is killed right after.
final class DocumentStore: Sendable {
    private let database: DatabaseQueue

    /// Opens (and creates if needed) the store at `path`; a file that cannot be used (or a
    /// directory that does not exist) is a ``StoreStartError``.
    init(path: String) throws(StoreStartError) {
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
        return migrator
    }

    /// Every stored change, oldest first.
    func changes() throws -> [StoredChange] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, body, sequence FROM document ORDER BY sequence").map {
                StoredChange(id: $0["id"], body: $0["body"], sequence: $0["sequence"])
            }
        }
    }

    /// The sequence number of the latest write, 0 for an empty store.
    func lastSequence() throws -> Int64 {
        try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM document") ?? 0
        }
    }

    /// Stores the document's JSON (or a tombstone when `body` is nil) and returns its sequence number.
    @discardableResult
    func write(id: String, body: Data?) throws -> Int64 {
        do {
            return try insert(id: id, body: body)
        } catch {
            throw SQLiteStoreChecks.writeError(error)
        }
    }

    private func insert(id: String, body: Data?) throws -> Int64 {
        try database.write { db in
            let next = (try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM document") ?? 0) + 1
            try db.execute(
                sql: """
                    INSERT INTO document (id, body, sequence) VALUES (?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET body = excluded.body, sequence = excluded.sequence
                    """,
                arguments: [id, body, next]
            )
            return next
        }
    }

    /// Runs SQLite's `PRAGMA integrity_check`; true when it answers `ok`.
    func integrityCheck() throws -> Bool {
        try database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok" }
    }
}
