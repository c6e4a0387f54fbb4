import Foundation
import Search

/// The built-in collection: the base data set (the embedded cities) and the writes to it.
let citiesCollection = "cities"

/// What a change in the log is about.
enum StoredChangeKind: String, Sendable {
    /// A document was written (`body` its JSON) or deleted (`body` nil, a tombstone).
    case document
    /// A collection's schema was put (`body` the schema's JSON) or the collection was
    /// deleted with its documents (`body` nil); `id` is empty.
    case schema
}

/// One committed change: the latest write for a document id (in the snapshot's documents),
/// or one entry of the change log.
///
/// `body` is the document's JSON, or `nil` when the document was deleted
/// (a tombstone, so a deleted base-data document stays deleted).
struct StoredChange: Sendable, Equatable {
    var collection: String = citiesCollection
    var kind: StoredChangeKind = .document
    var id: String
    var body: Data?
    var sequence: Int64
}

/// A collection as the store keeps it: its name, its schema's JSON and the change that put it.
struct StoredCollection: Sendable, Equatable {
    var name: String
    var schema: Data
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
    /// The collections created with `PUT /collections/{name}` (not the built-in cities), by name.
    var collections: [StoredCollection] = []
    /// The collections whose persisted index the read took (``IndexCoverage``): `documents` holds
    /// only their documents written after it, each name with the sequence the index is current at.
    var covered: [String: Int64] = [:]
    /// The offered indexes (by name, the cities' included) whose history the store holds
    /// (``IndexMark``): on PostgreSQL those whose mark it confirms, on SQLite every one offered
    /// (a file has one history). An index not named here is rebuilt.
    var historyHeld: Set<String> = []
    /// The PostgreSQL server process that answered the read (``PostgresStore/serverIdentity``); nil on SQLite.
    var server: String?
}

/// A collection's persisted index, offered to a store's read at start: when it still fits, the
/// store reads only the collection's documents written after `sequence`, not all of them. It
/// fits when it was built from this store (`epoch`), under the schema the store holds now, put
/// at or before `sequence`, and `sequence` is not past the store's head. (A collection deleted
/// and made again has a later schema put; a replaced schema another schema.) On PostgreSQL its
/// `mark` must also name the store's history (``IndexMark``): a failover may have lost changes it holds.
struct IndexCoverage: Sendable {
    var sequence: Int64
    var schema: CollectionSchema
    var epoch: String
    var mark: IndexMark?

    /// Whether the index fits `stored` in a store at `head` of `epoch`.
    func fits(_ stored: StoredCollection, head: Int64, epoch: String) -> Bool {
        self.epoch == epoch && sequence <= head && stored.sequence <= sequence
            && (try? CollectionSchema.decode(json: Array(stored.schema))) == schema
    }
}

/// A write to make durable.
enum StoreWrite: Sendable, Equatable {
    case upsert(collection: String = citiesCollection, id: String, body: Data)
    /// `inBaseData`: whether the base data set has the id, so a delete of a document
    /// never written but served from the base data is a real change, not a 404.
    case delete(collection: String = citiesCollection, id: String, inBaseData: Bool)
    /// Creates or replaces a collection's schema.
    case putSchema(collection: String, schema: Data)
    /// Deletes a collection and every document of it, and in the same transaction `alsoRemoving`:
    /// documents of internal collections that belong to it (its synonyms and stop words), so
    /// that no failure leaves them behind for a collection made again under the name.
    case dropCollection(collection: String, alsoRemoving: [DocumentKey] = [])

    var collection: String {
        switch self {
        case .upsert(let collection, _, _), .delete(let collection, _, _), .putSchema(let collection, _),
            .dropCollection(let collection, _):
            collection
        }
    }

    /// The document's id; empty for a collection's schema.
    var id: String {
        switch self {
        case .upsert(_, let id, _), .delete(_, let id, _): id
        case .putSchema, .dropCollection: ""
        }
    }

    var kind: StoredChangeKind {
        switch self {
        case .upsert, .delete: .document
        case .putSchema, .dropCollection: .schema
        }
    }

    var body: Data? {
        switch self {
        case .upsert(_, _, let body), .putSchema(_, let body): body
        case .delete, .dropCollection: nil
        }
    }
}

/// The durable record of every write: SQLite on one node, PostgreSQL for a cluster.
///
/// The base data set is not stored: each replica loads it and applies the
/// snapshot's documents on top. A commit gives the change its sequence number:
/// gap-free, in commit order, the id `/events` streams and `Signalbox-Seq` answers.
protocol DocumentStore: Sendable {
    /// Everything committed so far, read in one consistent view; for the collections whose
    /// persisted index fits (`indexes`, by name), only the documents written after it.
    func snapshot(reusing indexes: [String: IndexCoverage]) async throws -> StoreSnapshot
    /// Makes `write` durable and returns its sequence number. A delete of a
    /// document that does not exist throws ``DocumentNotFound``; a store that
    /// cannot commit throws ``StoreError``. `committed`, if given, is told the sequence number
    /// as soon as the write is durable: for an upsert, with the rest of its commit group and
    /// before any of the group's writers resumes (``GroupCommit``), so that the replica can
    /// apply the group as one run.
    func commit(_ write: StoreWrite, committed: (@Sendable (Int64) -> Void)?) async throws -> Int64
    /// Makes every upsert of `batch` durable in one transaction, all or none, with consecutive
    /// sequence numbers in order; returns the first one. An import commits in such batches.
    func commit(batch: [StoreWrite]) async throws -> Int64
    /// Releases connections and files.
    func close() async
}

extension DocumentStore {
    /// Makes `write` durable and returns its sequence number (``commit(_:committed:)``).
    func commit(_ write: StoreWrite) async throws -> Int64 {
        try await commit(write, committed: nil)
    }

    /// Everything committed so far, every document included.
    func snapshot() async throws -> StoreSnapshot {
        try await snapshot(reusing: [:])
    }
}

/// A delete named a document that does not exist.
struct DocumentNotFound: Error, Sendable {
    let id: String
}

/// Names one document of one collection.
struct DocumentKey: Sendable, Hashable {
    var collection: String
    var id: String
}
