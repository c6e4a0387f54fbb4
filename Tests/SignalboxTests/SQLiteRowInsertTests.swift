import Foundation
import GRDB
import Testing

@testable import Signalbox

/// Rows written many to a statement and bound through SQLite's C interface (``SQLiteRowInsert``):
/// what it writes reads back byte for byte, in order (a later row of a key updates an earlier one,
/// within one step too), texts and blobs keep the difference between empty and `NULL`, and
/// SQLite's errors come out as GRDB's (a constraint is not mistaken for success).
@Suite struct SQLiteRowInsertTests {
    private static let documents = SQLiteRowInsert.Statements(
        "INSERT INTO document (collection, id, body, sequence)", columns: 4,
        "ON CONFLICT(collection, id) DO UPDATE SET body = excluded.body, sequence = excluded.sequence")

    private func database() throws -> DatabaseQueue {
        // The store's own tables, as its migrations make them.
        let database = try DatabaseQueue()
        try SQLiteStoreMigrations.migrator(history: 1_024).migrate(database)
        return database
    }

    private func rows(_ database: DatabaseQueue) throws -> [[String]] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT collection, id, quote(body), sequence, typeof(body) FROM document ORDER BY sequence").map { row in
                [row[0], row[1], row[2], String(row[3] as Int64), row[4]]
            }
        }
    }

    private func add(_ insert: inout SQLiteRowInsert, _ collection: String, _ id: String, _ body: Data?, _ sequence: Int64) throws {
        insert.append(text: collection)
        insert.append(text: id)
        insert.append(blob: body)
        insert.append(integer: sequence)
        try insert.endRow()
    }

    @Test func writesUpdatesAndMarksDeletions() throws {
        let database = try database()
        try database.write { db in
            var insert = SQLiteRowInsert(db, Self.documents)
            try add(&insert, "shop", "a", Data([0x7B, 0x00, 0x7D]), 1)
            try add(&insert, "shop", "é/b", Data(#"{"x":1}"#.utf8), 2)
            try add(&insert, "shop", "a", Data(#"{"y":2}"#.utf8), 3)
            try add(&insert, "other", "a", Data(), 4)
            try add(&insert, "other", "gone", nil, 5)
            try add(&insert, "", "", Data("e".utf8), 6)
            try insert.flush()
        }
        #expect(try rows(database) == [
            ["shop", "é/b", "X'7B2278223A317D'", "2", "blob"],
            ["shop", "a", "X'7B2279223A327D'", "3", "blob"],
            ["other", "a", "X''", "4", "blob"],
            ["other", "gone", "NULL", "5", "null"],
            ["", "", "X'65'", "6", "blob"],
        ])
    }

    /// More rows than one step takes, keys repeated within a step and across steps: the table
    /// ends as one-row statements in the same order would leave it.
    @Test func manyRowStepsWriteInOrder() throws {
        let database = try database()
        let count = SQLiteRowInsert.rowsPerStep * 3 + 5
        try database.write { db in
            var insert = SQLiteRowInsert(db, Self.documents)
            for sequence in 1...count {
                // Ids repeat every 7 rows: each id's last write wins.
                try add(&insert, "c", "id-\(sequence % 7)", Data("body-\(sequence)".utf8), Int64(sequence))
            }
            try insert.flush()
        }
        let expected = ((count - 6)...count).map { sequence in
            ["c", "id-\(sequence % 7)", "X'" + Data("body-\(sequence)".utf8).map { String(format: "%02X", $0) }.joined() + "'", "\(sequence)", "blob"]
        }
        #expect(try rows(database) == expected)
    }

    @Test func rowsAreWrittenAtAFullStepOrAtFlush() throws {
        let database = try database()
        try database.write { db in
            var insert = SQLiteRowInsert(db, Self.documents)
            for sequence in 1..<SQLiteRowInsert.rowsPerStep { try add(&insert, "c", "\(sequence)", Data(), Int64(sequence)) }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") == 0)
            try add(&insert, "c", "last", Data(), Int64(SQLiteRowInsert.rowsPerStep))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") == SQLiteRowInsert.rowsPerStep)
            try add(&insert, "c", "more", Data(), Int64(SQLiteRowInsert.rowsPerStep + 1))
            try insert.flush()
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") == SQLiteRowInsert.rowsPerStep + 1)
        }
    }

    @Test(arguments: [1, SQLiteRowInsert.rowsPerStep])
    func aFailedStatementThrowsSQLitesError(rowsInTheStep: Int) throws {
        let database = try database()
        let error = #expect(throws: DatabaseError.self) {
            try database.write { db in
                var insert = SQLiteRowInsert(db, Self.documents)
                try add(&insert, "shop", "a", Data("1".utf8), 1)
                try insert.flush()
                // The sequence is the table's key: the last row of the step (or the lone one) collides.
                for row in 1..<rowsInTheStep { try add(&insert, "shop", "b\(row)", Data("2".utf8), Int64(row + 1)) }
                try add(&insert, "shop", "z", Data("2".utf8), 1)
                try insert.flush()
            }
        }
        #expect(error?.resultCode == .SQLITE_CONSTRAINT)
        #expect(try rows(database).isEmpty)  // the transaction rolled back
    }
}
