import Foundation
import PostgresNIO

// The statements every write and every read of the log runs, prepared once per connection
// (postgres-nio prepares them on first use): parsing and planning the commit's chain of CTEs
// was about 40% of its server time when sent as a plain query each time.

/// A group of upserts in one statement (``PostgresStore``'s group commit): the group takes
/// `count` numbers after the head at once, each row's number is its place in the group, a
/// document written twice keeps its later version, the log is pruned, and the commit notifies
/// with `notifyTail` after the head (``ChangeNotification``).
struct UpsertGroupStatement: PostgresPreparedStatement {
    static let name = "signalbox_upsert_group_1"
    static let sql = """
        WITH h AS (UPDATE signalbox_meta SET head = head + $1 RETURNING head),
        w AS (SELECT (SELECT head FROM h) - $1 + t.ord AS seq, t.collection, t.id, t.body
              FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(collection, id, body, ord)),
        d AS (INSERT INTO signalbox_document (collection, id, body, seq)
              SELECT DISTINCT ON (collection, id) collection, id, body, seq FROM w ORDER BY collection, id, seq DESC
              ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body, seq = excluded.seq),
        c AS (INSERT INTO signalbox_change (seq, collection, kind, id, body) SELECT seq, collection, 'document', id, body FROM w),
        p AS (\(PostgresStore.prune(head: "(SELECT head FROM h)", history: "$5")))
        SELECT head, pg_notify('\(PostgresStore.channel)', head::text || $6)::text FROM h
        """
    typealias Row = Int64

    let collections: [String]
    let ids: [String]
    let bodies: [String]
    let history: Int64
    let notifyTail: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(Int64(ids.count))
        bindings.append(collections)
        bindings.append(ids)
        bindings.append(bodies)
        bindings.append(history)
        bindings.append(notifyTail)
        return bindings
    }

    /// The new head (the first column only: a tuple decode costs runtime generic lookups).
    func decodeRow(_ row: PostgresRow) throws -> Int64 {
        var cells = row.makeIterator()
        guard let head = cells.next() else { throw StoreError.unavailable(detail: "the commit returned no head") }
        return try head.decode(Int64.self)
    }
}

/// Up to `limit` changes of the log after `sequence`, leaving out `skipping`, with the head and
/// the answering server's identity on every row (one row with NULL change columns when there is
/// no change). ``PostgresStore/changes(after:limit:skipping:)`` explains the `LIMIT 1`.
struct ChangeLogReadStatement: PostgresPreparedStatement {
    static let name = "signalbox_change_log_read_1"
    static let sql = """
        SELECT m.head, \(PostgresStore.serverIdentity), c.seq, c.collection, c.kind, c.id, c.body
        FROM (SELECT head FROM signalbox_meta LIMIT 1) m LEFT JOIN LATERAL (
            SELECT seq, collection, kind, id, body FROM signalbox_change
            WHERE seq > $1 AND seq <> ALL($2::bigint[]) ORDER BY seq LIMIT $3
        ) c ON true ORDER BY c.seq
        """

    struct Row: Sendable {
        let head: Int64
        let server: String
        /// Nil on the row that only carries the head.
        let change: StoredChange?
    }

    let sequence: Int64
    let skipping: [Int64]
    let limit: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(sequence)
        bindings.append(skipping)
        bindings.append(limit)
        return bindings
    }

    /// Cell by cell with concrete types: the tuple decode (parameter packs) was not specialized
    /// and cost about 14,000 instructions a row in runtime generic lookups. The body goes from the
    /// row's bytes to `Data` without a `String`.
    func decodeRow(_ row: PostgresRow) throws -> Row {
        var cells = row.makeIterator()
        guard let headCell = cells.next(), let serverCell = cells.next(), let seqCell = cells.next(),
            let collectionCell = cells.next(), let kindCell = cells.next(), let idCell = cells.next(), let bodyCell = cells.next()
        else { throw StoreError.unavailable(detail: "a change log row lacks columns") }
        let head = try headCell.decode(Int64.self), server = try serverCell.decode(String.self)
        guard let seq = try seqCell.decode(Int64?.self) else { return Row(head: head, server: server, change: nil) }
        let kind = try kindCell.decode(String.self)
        let change = StoredChange(
            collection: try collectionCell.decode(String.self), kind: StoredChangeKind(rawValue: kind) ?? .document,
            id: try idCell.decode(String.self), body: bodyCell.bytes.map { Data($0.readableBytesView) }, sequence: seq)
        return Row(head: head, server: server, change: change)
    }
}
