import Foundation
import GRDB
import GRDBSQLite

/// An `INSERT` whose rows are gathered and written many to a statement, bound through SQLite's
/// C interface (``SQLiteParameters``).
///
/// Each step of a statement opens and frees a cursor per B-tree and halts the statement: a third
/// of what a one-row upsert cost SQLite (callgrind of an import). One `VALUES (...), (...)` of
/// ``rowsPerStep`` rows pays that once for all of them; the rows are still written one after the
/// other, in order, so a later row of the same key updates an earlier one as separate
/// statements would. Rows left over when ``flush()`` is called go one to a statement.
///
/// Used only inside a write transaction, for statements that return no rows. Rows are written
/// when a step's worth has gathered and at ``flush()``: flush before anything reads the table.
struct SQLiteRowInsert {
    /// Rows written by one step of the many-row statement.
    static let rowsPerStep = 32

    /// The two statements' texts for one table's rows, made once (a commit looks them up in GRDB's cache).
    struct Statements: Sendable {
        let oneRow: String
        let manyRows: String
        let columns: Int

        /// `prefix` is the statement up to `VALUES` (`INSERT INTO t (a, b)`), `suffix` what
        /// follows the rows (an `ON CONFLICT` clause, or nothing).
        init(_ prefix: String, columns: Int, _ suffix: String = "") {
            let row = "(" + repeatElement("?", count: columns).joined(separator: ", ") + ")"
            oneRow = "\(prefix) VALUES \(row) \(suffix)"
            manyRows = "\(prefix) VALUES \(repeatElement(row, count: SQLiteRowInsert.rowsPerStep).joined(separator: ", ")) \(suffix)"
            self.columns = columns
        }
    }

    private let statements: Statements
    private let database: Database
    private var parameters = SQLiteParameters()

    /// The statements are compiled once per connection (GRDB's statement cache) and looked up
    /// only when rows are written: a commit of one `PUT` never looks up the many-row one.
    init(_ db: Database, _ statements: Statements) {
        self.statements = statements
        database = db
    }

    /// Appends a text value to the row being added.
    mutating func append(text: String) { parameters.append(text: text) }
    /// Appends a blob (nil: `NULL`) to the row being added.
    mutating func append(blob: Data?) { parameters.append(blob: blob) }
    /// Appends an integer to the row being added.
    mutating func append(integer: Int64) { parameters.append(integer: integer) }

    /// Ends the row being added (exactly `columns` values since the last); writes the gathered
    /// rows when a step's worth is there.
    mutating func endRow() throws {
        precondition(parameters.count.isMultiple(of: statements.columns), "a row of \(statements.columns) values")
        guard parameters.count == statements.columns * Self.rowsPerStep else { return }
        defer { parameters.removeAll() }
        try step(database.cachedStatement(sql: statements.manyRows), 0, parameters.count)
    }

    /// Writes the rows gathered so far, one to a statement.
    mutating func flush() throws {
        guard parameters.count > 0 else { return }
        defer { parameters.removeAll() }
        let oneRow = try database.cachedStatement(sql: statements.oneRow)
        for start in stride(from: 0, to: parameters.count, by: statements.columns) { try step(oneRow, start, start + statements.columns) }
    }

    /// Runs `statement` with the values `start..<end`; SQLite's error, read before anything else
    /// can change its message, is thrown as GRDB's.
    private func step(_ statement: Statement, _ start: Int, _ end: Int) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        let code = try parameters.bind(start..<end, to: handle) {
            let code = sqlite3_step(handle)
            return code == SQLITE_DONE ? nil : (code, String(cString: sqlite3_errmsg(database.sqliteConnection)))
        }
        sqlite3_reset(handle)
        if let (code, message) = code { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql) }
    }
}
