import Foundation
import GRDB
import Testing

@testable import Signalbox

/// The upsert bound through SQLite's C interface (``SQLiteUpsertStatement``): what it writes reads
/// back byte for byte, it updates in place, and SQLite's errors come out as GRDB's, mapped by the
/// store as before (a constraint is not mistaken for success).
@Suite struct SQLiteUpsertStatementTests {
    private func database() throws -> DatabaseQueue {
        let database = try DatabaseQueue()
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE document (collection TEXT NOT NULL, id TEXT NOT NULL, body BLOB, sequence INTEGER NOT NULL UNIQUE,
                                       PRIMARY KEY (collection, id))
                """)
        }
        return database
    }

    private func rows(_ database: DatabaseQueue) throws -> [[String]] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT collection, id, quote(body), sequence, typeof(body) FROM document ORDER BY sequence").map { row in
                [row[0], row[1], row[2], String(row[3] as Int64), row[4]]
            }
        }
    }

    @Test func writesUpdatesAndMarksDeletions() throws {
        let database = try database()
        try database.write { db in
            let upsert = try SQLiteUpsertStatement(db)
            try upsert.execute(collection: "shop", id: "a", body: Data([0x7B, 0x00, 0x7D]), sequence: 1)
            try upsert.execute(collection: "shop", id: "é/b", body: Data(#"{"x":1}"#.utf8), sequence: 2)
            try upsert.execute(collection: "shop", id: "a", body: Data(#"{"y":2}"#.utf8), sequence: 3)
            try upsert.execute(collection: "other", id: "a", body: Data(), sequence: 4)
            try upsert.execute(collection: "other", id: "gone", body: nil, sequence: 5)
        }
        #expect(try rows(database) == [
            ["shop", "é/b", "X'7B2278223A317D'", "2", "blob"],
            ["shop", "a", "X'7B2279223A327D'", "3", "blob"],
            ["other", "a", "X''", "4", "blob"],
            ["other", "gone", "NULL", "5", "null"],
        ])
    }

    @Test func aFailedStatementThrowsSQLitesError() throws {
        let database = try database()
        let error = #expect(throws: DatabaseError.self) {
            try database.write { db in
                let upsert = try SQLiteUpsertStatement(db)
                try upsert.execute(collection: "shop", id: "a", body: Data("1".utf8), sequence: 1)
                try upsert.execute(collection: "shop", id: "b", body: Data("2".utf8), sequence: 1)  // the sequence is unique
            }
        }
        #expect(error?.resultCode == .SQLITE_CONSTRAINT)
        #expect(try rows(database).isEmpty)  // the transaction rolled back
    }
}
