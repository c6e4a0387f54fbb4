import Base
import Foundation

/// The stored keys this replica knows, by id: loaded from the store's snapshot, then kept up to
/// date by the change applier as key changes commit here or on another replica. A deleted key
/// leaves it the moment its change is applied, so every check after that refuses it.
final class KeyRegistry: Sendable {
    /// Keys are kept as the documents of this collection: replicated, logged and snapshotted as
    /// documents are, without a table of their own. A collection name cannot start with `_`,
    /// so no user collection can reach it.
    static let collection = "_keys"

    private let keys = Locked<[String: StoredKey]>([:])

    init(snapshot: [StoredChange] = []) {
        for change in snapshot where change.collection == Self.collection { apply(id: change.id, body: change.body) }
    }

    /// A key written (`body`) or deleted (nil). A body that does not decode drops the key: refused, never half-read.
    func apply(id: String, body: Data?) {
        let key = body.flatMap { try? StoredKey.decode($0) }
        keys.withLock { $0[id] = key }
    }

    func key(id: String) -> StoredKey? {
        keys.withLock { $0[id] }
    }

    /// Every key, oldest first.
    var all: [StoredKey] {
        keys.withLock { Array($0.values) }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }
}
