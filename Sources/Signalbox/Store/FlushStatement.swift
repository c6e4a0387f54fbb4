import PostgresNIO

/// A transaction that commits synchronously and returns only once every transaction committed
/// before it is durable (and, with `synchronous_standby_names`, on the synchronous standby):
/// the WAL is flushed up to its commit record, which comes after theirs.
///
/// It must write WAL of its own: PostgreSQL commits a transaction that wrote none without
/// waiting for the flush even when `synchronous_commit` is on (`txid_current()` alone assigns an
/// xid but writes no record; checked on PostgreSQL 15 with `pg_current_wal_flush_lsn()`). A
/// transactional `pg_logical_emit_message` writes one small record, takes no lock and needs no
/// privilege. It does not notify (``NotifyStatement``): a NOTIFY holds PostgreSQL's cluster-wide
/// notification lock until its transaction's commit is flushed, which would put every flush in a line again.
struct FlushStatement: PostgresPreparedStatement {
    static let name = "signalbox_flush_1"
    static let sql = """
        SELECT set_config('synchronous_commit', 'on', true), pg_logical_emit_message(true, 'signalbox', '')::text
        """
    typealias Row = String

    func makeBindings() throws -> PostgresBindings { PostgresBindings() }

    func decodeRow(_ row: PostgresRow) throws -> String {
        var cells = row.makeIterator()
        guard let setting = cells.next() else { throw StoreError.unavailable(detail: "the flush returned no row") }
        return try setting.decode(String.self)
    }
}

/// A group's NOTIFY (``ChangeNotification``), sent after its ``FlushStatement`` returned, in a
/// transaction of its own committed asynchronously: PostgreSQL serializes every transaction that
/// notifies (a lock on "database 0", held until after its commit), so this one must not wait for a
/// flush under it. Listeners get it only once it committed, after the group was durable.
struct NotifyStatement: PostgresPreparedStatement {
    static let name = "signalbox_notify_1"
    static let sql = """
        SELECT set_config('synchronous_commit', 'off', true), pg_notify('\(PostgresStore.channel)', $1::text)::text
        """
    typealias Row = String

    let payload: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(payload)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String {
        var cells = row.makeIterator()
        guard let setting = cells.next() else { throw StoreError.unavailable(detail: "the notification returned no row") }
        return try setting.decode(String.self)
    }
}
