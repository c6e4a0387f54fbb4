import Foundation
import GRDB

/// The SQLite store's schema, version by version. A store written by an older release opens
/// and upgrades in place (GRDB records which migrations ran), keeping every document and
/// every sequence number.
enum SQLiteStoreMigrations {
    /// Brings the store at `database` to the latest version. When a migration ran, the WAL is
    /// checkpointed and truncated: a migration that rewrites a table (v5: every document) goes
    /// through the WAL, which would otherwise keep that size on disk beside the store.
    static func migrate(_ database: DatabaseQueue, history: Int64) throws {
        let migrator = migrator(history: history)
        guard try !database.read({ try migrator.hasCompletedMigrations($0) }) else { return }
        try migrator.migrate(database)
        try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// The migrations; `history` is how many changes the change log keeps (v3 fills it).
    static func migrator(history: Int64) -> DatabaseMigrator {
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
        // A store of the release before (1dd7cca) kept only each document's latest write, but
        // the newest changes are often all still there: the last run of consecutive sequence
        // numbers up to the head is exactly the changes that ended it (an overwritten change
        // leaves a gap). The log starts with that run, so `Last-Event-ID` resumes from within
        // it are served across the upgrade; older ones get a reset, as before.
        migrator.registerMigration("v3: change log") { db in
            try db.create(table: "change") { table in
                table.primaryKey("sequence", .integer)
                table.column("id", .text).notNull()
                table.column("body", .blob)
            }
            try db.execute(
                sql: """
                    INSERT INTO change (sequence, id, body)
                    SELECT sequence, id, body FROM document
                    WHERE sequence >= (SELECT MAX(d.sequence) FROM document d
                                       WHERE NOT EXISTS (SELECT 1 FROM document p WHERE p.sequence = d.sequence - 1))
                      AND sequence > (SELECT MAX(sequence) FROM document) - ?
                    """,
                arguments: [history])
        }
        // Collections (issue 25): documents are keyed by collection and id (the rows of older
        // stores are the built-in cities'), a change names its collection and kind, and a head
        // counter numbers changes (a deleted collection's rows go, so MAX(sequence) would not).
        migrator.registerMigration("v4: collections") { db in
            try db.execute(
                sql: """
                    CREATE TABLE document_v4 (
                        collection TEXT NOT NULL, id TEXT NOT NULL, body BLOB, sequence INTEGER NOT NULL UNIQUE,
                        PRIMARY KEY (collection, id));
                    INSERT INTO document_v4 (collection, id, body, sequence) SELECT 'cities', id, body, sequence FROM document;
                    DROP TABLE document;
                    ALTER TABLE document_v4 RENAME TO document;
                    ALTER TABLE change ADD COLUMN collection TEXT NOT NULL DEFAULT 'cities';
                    ALTER TABLE change ADD COLUMN kind TEXT NOT NULL DEFAULT 'document';
                    CREATE TABLE collection (name TEXT PRIMARY KEY, schema BLOB NOT NULL, sequence INTEGER NOT NULL);
                    ALTER TABLE meta ADD COLUMN head INTEGER NOT NULL DEFAULT 0;
                    UPDATE meta SET head = (SELECT COALESCE(MAX(sequence), 0) FROM document);
                    """)
        }
        return migrator
    }
}
