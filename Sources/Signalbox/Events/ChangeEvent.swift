import Base
import Foundation
import Search

/// One change to the documents: what changed, and its JSON body, encoded once when the change
/// is made. How it is sent (`/events` frames it as a server-sent event) is the endpoint's business.
public struct ChangeEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable {
        case upserted = "document.upserted"
        case deleted = "document.deleted"
        case collectionCreated = "collection.created"
        case collectionReplaced = "collection.replaced"
        case collectionDeleted = "collection.deleted"

        /// Whether the change is to a collection's schema rather than to one of its documents.
        public var isCollectionChange: Bool {
            switch self {
            case .upserted, .deleted: false
            case .collectionCreated, .collectionReplaced, .collectionDeleted: true
            }
        }
    }

    /// Increasing event id: the store's sequence number of the write, so ids keep increasing across restarts.
    public var sequence: Int64 { storage.sequence }
    public var kind: Kind { storage.kind }
    /// The collection the change belongs to (`cities` for the built-in one).
    public var collection: String { storage.collection }
    /// The document's id.
    public var documentID: String { storage.documentID }
    /// The new document (upserts), or nil (deletes).
    public var document: Document? { storage.document }
    /// The document before the change, if it existed (the lookup cache uses it to tell whom the change affects).
    public var previous: Document? { storage.previous }
    /// A collection's document after the change, as its schema decoded it (nil after a delete,
    /// for the cities, and for changes read back from the log).
    public var record: CollectionDocument? { storage.record }
    /// A collection's document before the change, when the applier had it.
    public var previousRecord: CollectionDocument? { storage.previousRecord }
    /// `{"document":…,"id":…}` (no `document` after a delete), sorted keys as `JSONCoding` writes
    /// them: encoded once, whoever receives the change.
    public var json: [UInt8] { storage.json }

    /// The fields, in one immutable object: an event is copied at every
    /// operator it passes for each of thousands of subscribers, on several
    /// threads at once, and a copy is then one retain instead of one per
    /// string, array and dictionary of two documents.
    private let storage: Storage

    private final class Storage: Sendable {
        let sequence: Int64
        let kind: Kind
        let collection: String
        let documentID: String
        let document: Document?
        let previous: Document?
        let record: CollectionDocument?
        let previousRecord: CollectionDocument?
        let json: [UInt8]

        init(
            sequence: Int64, kind: Kind, collection: String, documentID: String, document: Document?, previous: Document?,
            record: CollectionDocument?, previousRecord: CollectionDocument?, json: [UInt8]
        ) {
            self.record = record
            self.previousRecord = previousRecord
            self.sequence = sequence
            self.kind = kind
            self.collection = collection
            self.documentID = documentID
            self.document = document
            self.previous = previous
            self.json = json
        }
    }

    /// An event, its JSON encoded once here.
    ///
    /// - Parameter sequence: the change's id in the change log.
    /// - Parameter kind: whether the document was upserted or deleted (or the collection's schema changed).
    /// - Parameter collection: the collection the change belongs to.
    /// - Parameter documentID: the changed document's id.
    /// - Parameter document: the document after the change; nil after a delete.
    /// - Parameter previous: the document before the change; nil when it is new.
    /// - Parameter storedBody: the document's JSON exactly as the store keeps it (`JSONCoding`),
    ///   reused as the event's `document`; nil to encode `document` here. For a collection's
    ///   change, its schema's JSON.
    /// - Parameter record: a collection's document after the change, as its schema decoded it.
    /// - Parameter previousRecord: a collection's document before the change, if it existed.
    public init(
        sequence: Int64, kind: Kind, collection: String = "cities", documentID: String, document: Document?, previous: Document?,
        storedBody: Data? = nil, record: CollectionDocument? = nil, previousRecord: CollectionDocument? = nil
    ) {
        let json =
            kind.isCollectionChange
            ? Self.json(collection: collection, schema: storedBody)
            : Self.json(collection: collection, documentID: documentID, document: document, storedBody: storedBody)
        storage = Storage(
            sequence: sequence, kind: kind, collection: collection, documentID: documentID, document: document, previous: previous,
            record: record, previousRecord: previousRecord, json: json)
    }

    public static func == (lhs: ChangeEvent, rhs: ChangeEvent) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.sequence == rhs.sequence && lhs.kind == rhs.kind && lhs.collection == rhs.collection
                && lhs.documentID == rhs.documentID
                && lhs.document == rhs.document && lhs.previous == rhs.previous && lhs.json == rhs.json)
    }

    /// `{"collection":…,"document":…,"id":…}`: the bytes `JSONCoding.encoder` makes of them (sorted
    /// keys, no `document` key for a delete), with the stored body spliced in rather than encoded again.
    private static func json(collection: String, documentID: String, document: Document?, storedBody: Data?) -> [UInt8] {
        var json = JSONWriter(capacity: (storedBody?.count ?? 64) + documentID.utf8.count + collection.utf8.count + 48)
        json.raw("{")
        json.key("collection")
        json.string(collection)
        json.raw(",")
        if let body = storedBody ?? document.flatMap({ try? JSONCoding.encoder.encode($0) }) {
            json.key("document")
            json.raw(Array(body))
            json.raw(",")
        }
        json.key("id")
        json.string(documentID)
        json.raw("}")
        return json.bytes
    }

    /// `{"collection":…,"schema":…}` (no `schema` when the collection was deleted).
    private static func json(collection: String, schema: Data?) -> [UInt8] {
        var json = JSONWriter(capacity: (schema?.count ?? 0) + collection.utf8.count + 32)
        json.raw("{")
        json.key("collection")
        json.string(collection)
        if let schema {
            json.raw(",")
            json.key("schema")
            json.raw(Array(schema))
        }
        json.raw("}")
        return json.bytes
    }
}
