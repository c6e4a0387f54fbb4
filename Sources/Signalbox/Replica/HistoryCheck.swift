import Base
import Foundation

/// After the store's server changed (a standby promoted, or a restart), is the history this
/// replica served the store's history?
///
/// With asynchronous replication a promoted standby may lack the last changes the old primary
/// committed, and hand their sequence numbers to new changes. A replica that applied the lost
/// ones must not then serve one number with two different changes: it compares the changes it
/// applied last (``ChangeApplier/recentlyApplied()``, by id and a digest of the body) with the
/// store's log for the same numbers. The first number where they differ (or that the store no
/// longer reaches) is where the histories part; the replica goes back to the number before it
/// and applies the store's history from there (``ChangeApplier/rewind(to:corrections:history:)``).
///
/// Why comparing the newest common changes is enough: a standby replays the primary's WAL in
/// order, so if it holds change N as the old primary made it, it holds every change before N too.
enum HistoryCheck {
    /// A change as a replica applied it, small enough to keep thousands of: its body is shared
    /// with the change, not copied, and digested only when compared or marked. An import applies
    /// a million changes and compares none: digesting each body as it was applied took about a
    /// fortieth of the import's CPU.
    struct Applied: Sendable, Equatable {
        let sequence: Int64
        let collection: String
        let kind: StoredChangeKind
        let id: String
        private let source: DigestSource

        private enum DigestSource: Sendable {
            case given(UInt64)
            case body(Data?)
        }

        init(sequence: Int64, collection: String = citiesCollection, kind: StoredChangeKind = .document, id: String, digest: UInt64) {
            self.sequence = sequence
            self.collection = collection
            self.kind = kind
            self.id = id
            source = .given(digest)
        }

        /// A change read from the store (the log's newest at a start).
        init(_ stored: StoredChange) {
            self.init(sequence: stored.sequence, collection: stored.collection, kind: stored.kind, id: stored.id, body: stored.body)
        }

        init(_ change: ChangeApplier.Change) {
            self.init(sequence: change.sequence, collection: change.collection, kind: change.kind, id: change.id, body: change.body)
        }

        private init(sequence: Int64, collection: String, kind: StoredChangeKind, id: String, body: Data?) {
            self.sequence = sequence
            self.collection = collection
            self.kind = kind
            self.id = id
            source = .body(body)
        }

        /// ``HistoryCheck/digest(collection:kind:id:body:)`` of the change.
        var digest: UInt64 {
            switch source {
            case .given(let digest): digest
            case .body(let body): HistoryCheck.digest(collection: collection, kind: kind, id: id, body: body)
            }
        }

        static func == (a: Applied, b: Applied) -> Bool {
            a.sequence == b.sequence && a.collection == b.collection && a.kind == b.kind && a.id == b.id && a.digest == b.digest
        }
    }

    enum Outcome: Equatable {
        /// Every change compared is the store's.
        case consistent
        /// The store's history and this replica's part after `lastCommon`.
        case parted(lastCommon: Int64)
        /// They part before the oldest change kept on either side: the replica cannot tell
        /// where, and must load the store again from scratch.
        case unknown
    }

    /// A change's identity (``StoredChange/digest(collection:kind:id:body:)``).
    static func digest(collection: String = citiesCollection, kind: StoredChangeKind = .document, id: String, body: Data?) -> UInt64 {
        StoredChange.digest(collection: collection, kind: kind, id: id, body: body)
    }

    /// Compares `applied` (this replica's newest changes, in order, ending at what it applied)
    /// with what the store's log holds for the same numbers (`stored`) and its head now.
    static func compare(applied: [Applied], stored: [StoredChange], storeHead: Int64) -> Outcome {
        guard !applied.isEmpty else { return .consistent }
        let theirs = Dictionary(stored.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        var lastMatch: Int64?
        for change in applied {
            guard let their = theirs[change.sequence] else {
                // Older than the store's log keeps: not comparable, unless a match came before.
                if change.sequence <= storeHead && lastMatch == nil { continue }
                // A number the store has not reached (or lost).
                return lastMatch.map { .parted(lastCommon: $0) } ?? .unknown
            }
            guard their.id == change.id && their.collection == change.collection && their.kind == change.kind
                && digest(collection: their.collection, kind: their.kind, id: their.id, body: their.body) == change.digest
            else {
                return lastMatch.map { .parted(lastCommon: $0) } ?? .unknown
            }
            lastMatch = change.sequence
        }
        return lastMatch == nil ? .unknown : .consistent
    }
}
