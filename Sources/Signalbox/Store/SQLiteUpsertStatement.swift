import Foundation
import GRDB
import GRDBSQLite

/// The document upsert of a commit, its values bound straight through SQLite's C interface.
///
/// GRDB's `execute(arguments:)` builds an argument array and a `DatabaseValue` for each value and
/// goes through its statement bookkeeping: 9,000 of the 28,500 instructions of an imported row
/// (callgrind, 33792b4). Here nothing is copied but the statement's text arguments. Used only
/// inside a write transaction, for a plain `INSERT ... ON CONFLICT DO UPDATE` that returns no rows.
struct SQLiteUpsertStatement {
    static let sql = """
        INSERT INTO document (collection, id, body, sequence) VALUES (?, ?, ?, ?)
        ON CONFLICT(collection, id) DO UPDATE SET body = excluded.body, sequence = excluded.sequence
        """

    private let statement: Statement
    private let database: Database

    /// The statement compiled once per connection (GRDB's statement cache).
    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: Self.sql)
        database = db
    }

    /// Writes the document's body (nil: its deletion mark) at `sequence`.
    func execute(collection: String, id: String, body: Data?, sequence: Int64) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        // SQLITE_TRANSIENT: SQLite copies the two short texts; the body's bytes are bound in
        // place (SQLITE_STATIC) and stay alive and unchanged until the step returns.
        sqlite3_bind_text(handle, 1, collection, -1, Self.transient)
        sqlite3_bind_text(handle, 2, id, -1, Self.transient)
        sqlite3_bind_int64(handle, 4, sequence)
        let failure: DatabaseError?
        if let body {
            failure = body.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress {
                    sqlite3_bind_blob(handle, 3, base, CInt(bytes.count), nil)
                } else {
                    sqlite3_bind_zeroblob(handle, 3, 0)
                }
                return step(handle)
            }
        } else {
            sqlite3_bind_null(handle, 3)
            failure = step(handle)
        }
        if let failure { throw failure }
    }

    /// Runs the statement and lets go of its bound values (no pointer to the body is kept past
    /// this); its error, read before anything else can change SQLite's message.
    private func step(_ handle: SQLiteStatement) -> DatabaseError? {
        let code = sqlite3_step(handle)
        let failure =
            code == SQLITE_DONE
            ? nil
            : DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(database.sqliteConnection)), sql: Self.sql)
        sqlite3_clear_bindings(handle)
        return failure
    }

    /// SQLite's `SQLITE_TRANSIENT` (a C macro, not imported): copy the value before returning.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
