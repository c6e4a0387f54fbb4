import CSQLite
import Search

/// The peer: SQLite FTS5 over the same documents (`unicode61 remove_diacritics 2`, prefix indexes
/// 1-4), ranked by bm25 then population, top 10 (no total count, which only favours it).
final class FTS5Engine {
    private var db: OpaquePointer?
    private var statement: OpaquePointer?

    init(documents: [Document]) {
        sqlite3_open(":memory:", &db)
        exec("""
            CREATE VIRTUAL TABLE cities USING fts5(name, alternates, id UNINDEXED, population UNINDEXED,
                tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3 4')
            """)
        exec("BEGIN")
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO cities(name, alternates, id, population) VALUES (?, ?, ?, ?)", -1, &insert, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for document in documents {
            sqlite3_bind_text(insert, 1, document.name, -1, transient)
            sqlite3_bind_text(insert, 2, document.alternateNames.joined(separator: " | "), -1, transient)
            sqlite3_bind_text(insert, 3, document.id, -1, transient)
            sqlite3_bind_int64(insert, 4, Int64(document.rank))
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        exec("COMMIT")
        sqlite3_prepare_v2(
            db, "SELECT id FROM cities WHERE cities MATCH ? ORDER BY bm25(cities), population DESC LIMIT 10", -1,
            &statement, nil)
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(db)
    }

    private func exec(_ sql: String) {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &error) != SQLITE_OK {
            fatalError("sqlite: \(String(cString: error!))")
        }
    }

    /// The FTS5 query for typed text: each word quoted, the last one a prefix.
    static func matchExpression(_ text: String) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "-" || $0 == "," })
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        guard !words.isEmpty else { return nil }
        return words.joined(separator: " ") + (text.last?.isWhitespace == true ? "" : "*")
    }

    /// Ids of the top 10.
    func search(_ text: String) -> [String] {
        guard let expression = Self.matchExpression(text) else { return [] }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(statement, 1, expression, -1, transient)
        var ids: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            ids.append(String(cString: sqlite3_column_text(statement, 0)))
        }
        sqlite3_reset(statement)
        return ids
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
