import Foundation

/// One committed change: the latest write for a document id.
///
/// `body` is the document's JSON, or `nil` when the document was deleted
/// (a tombstone, so a deleted base-data document stays deleted).
struct StoredChange: Sendable, Equatable {
    var id: String
    var body: Data?
    var sequence: Int64
}

/// What a store holds, read consistently: where a replica starts.
struct StoreSnapshot: Sendable {
    /// The latest write of every document written so far, oldest first.
    var documents: [StoredChange]
    /// The sequence number of the latest committed change (0 for an empty store).
    var head: Int64
    /// Names this store's life: a recreated store has another, so clients resuming
    /// from an event id of the old one are told to reload.
    var epoch: String
    /// The newest changes of the change log, oldest first, ending at `head` (at most the
    /// store's history): what a replica that starts now replays to a client resuming with a
    /// `Last-Event-ID`, so a restart does not cut every client's resume short.
    var recentChanges: [StoredChange] = []
}

/// A write to make durable.
enum StoreWrite: Sendable {
    case upsert(id: String, body: Data)
    /// `inBaseData`: whether the base data set has the id, so a delete of a document
    /// never written but served from the base data is a real change, not a 404.
    case delete(id: String, inBaseData: Bool)

    var id: String {
        switch self {
        case .upsert(let id, _), .delete(let id, _): id
        }
    }

    var body: Data? {
        if case .upsert(_, let body) = self { return body }
        return nil
    }
}

/// The durable record of every write: SQLite on one node, PostgreSQL for a cluster.
///
/// The base data set is not stored: each replica loads it and applies the
/// snapshot's documents on top. A commit gives the change its sequence number:
/// gap-free, in commit order, the id `/events` streams and `Signalbox-Seq` answers.
protocol DocumentStore: Sendable {
    /// Everything committed so far, read in one consistent view.
    func snapshot() async throws -> StoreSnapshot
    /// Makes `write` durable and returns its sequence number. A delete of a
    /// document that does not exist throws ``DocumentNotFound``; a store that
    /// cannot commit throws ``StoreError``.
    func commit(_ write: StoreWrite) async throws -> Int64
    /// Releases connections and files.
    func close() async
}

/// A delete named a document that does not exist.
struct DocumentNotFound: Error, Sendable {
    let id: String
}
