import Foundation
import GRDB
import GRDBSQLite

/// Values for a statement's parameters, their bytes kept in one buffer that is reused from step
/// to step, bound through SQLite's C interface.
///
/// GRDB's `execute(arguments:)` builds an argument array and a `DatabaseValue` per value, and
/// `sqlite3_bind_text` with `SQLITE_TRANSIENT` mallocs a copy of each text: together most of
/// what binding a row cost (callgrind). Here a text or blob is one copy into the buffer, and
/// SQLite reads it in place (`SQLITE_STATIC`) while ``bind(_:to:during:)`` runs.
struct SQLiteParameters {
    private enum Value {
        case text(start: Int, count: Int)
        case blob(start: Int, count: Int)
        case integer(Int64)
        case null
    }

    private var values: [Value] = []
    private var bytes: [UInt8] = []

    /// How many values were appended since the last ``removeAll()``.
    var count: Int { values.count }

    mutating func append(text: String) {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        values.append(.text(start: start, count: bytes.count - start))
    }

    /// Appends a blob; nil is SQL `NULL` (an empty `Data` is an empty blob, not `NULL`).
    mutating func append(blob: Data?) {
        guard let blob else { return values.append(.null) }
        let start = bytes.count
        blob.withUnsafeBytes { bytes.append(contentsOf: $0) }
        values.append(.blob(start: start, count: bytes.count - start))
    }

    mutating func append(integer: Int64) {
        values.append(.integer(integer))
    }

    /// Forgets every value, keeping the buffers' capacity for the next rows.
    mutating func removeAll() {
        values.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Binds the values in `range` to the statement's parameters 1, 2, ... and runs `body`
    /// (which steps the statement) while their bytes stay where SQLite was told they are. The
    /// bindings are cleared before this returns: no pointer into the buffer outlives it. A value
    /// SQLite refuses (one longer than its limit) throws its error; nothing is stepped then.
    func bind<Result>(_ range: Range<Int>, to statement: SQLiteStatement, during body: () throws -> Result) throws -> Result {
        try bytes.withUnsafeBufferPointer { buffer in
            defer { sqlite3_clear_bindings(statement) }
            for (parameter, index) in zip(Int32(1)..., range) {
                let code: Int32
                switch values[index] {
                case .text(_, 0):
                    code = sqlite3_bind_text(statement, parameter, "", 0, Self.transient)
                case .text(let start, let count):
                    let text = UnsafeRawPointer(buffer.baseAddress! + start).assumingMemoryBound(to: CChar.self)
                    code = try sqlite3_bind_text(statement, parameter, text, Self.length(count), nil)
                case .blob(_, 0):
                    code = sqlite3_bind_zeroblob(statement, parameter, 0)
                case .blob(let start, let count):
                    code = try sqlite3_bind_blob(statement, parameter, buffer.baseAddress! + start, Self.length(count), nil)
                case .integer(let value):
                    code = sqlite3_bind_int64(statement, parameter, value)
                case .null:
                    code = sqlite3_bind_null(statement, parameter)
                }
                if code != SQLITE_OK {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "parameter \(parameter) could not be bound")
                }
            }
            return try body()
        }
    }

    /// A value's length as SQLite takes it; one beyond 2 GiB is SQLite's "too big".
    private static func length(_ count: Int) throws -> Int32 {
        guard let length = Int32(exactly: count) else { throw DatabaseError(resultCode: .SQLITE_TOOBIG, message: "a value of \(count) bytes") }
        return length
    }

    /// SQLite's `SQLITE_TRANSIENT` (a C macro, not imported): SQLite copies the value at once.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
