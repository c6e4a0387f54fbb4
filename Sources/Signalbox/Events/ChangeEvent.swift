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
    }

    /// Increasing event id: the store's sequence number of the write, so ids keep increasing across restarts.
    public var sequence: Int64 { storage.sequence }
    public var kind: Kind { storage.kind }
    /// The document's id.
    public var documentID: String { storage.documentID }
    /// The new document (upserts), or nil (deletes).
    public var document: Document? { storage.document }
    /// The document before the change, if it existed (the lookup cache uses it to tell whom the change affects).
    public var previous: Document? { storage.previous }
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
        let documentID: String
        let document: Document?
        let previous: Document?
        let json: [UInt8]

        init(sequence: Int64, kind: Kind, documentID: String, document: Document?, previous: Document?, json: [UInt8]) {
            self.sequence = sequence
            self.kind = kind
            self.documentID = documentID
            self.document = document
            self.previous = previous
            self.json = json
        }
    }

    /// An event, its JSON encoded once here.
    ///
    /// - Parameter sequence: the change's id in the change log.
    /// - Parameter kind: whether the document was upserted or deleted.
    /// - Parameter documentID: the changed document's id.
    /// - Parameter document: the document after the change; nil after a delete.
    /// - Parameter previous: the document before the change; nil when it is new.
    /// - Parameter storedBody: the document's JSON exactly as the store keeps it (`JSONCoding`),
    ///   reused as the event's `document`; nil to encode `document` here.
    public init(sequence: Int64, kind: Kind, documentID: String, document: Document?, previous: Document?, storedBody: Data? = nil) {
        let json = Self.json(documentID: documentID, document: document, storedBody: storedBody)
        storage = Storage(sequence: sequence, kind: kind, documentID: documentID, document: document, previous: previous, json: json)
    }

    public static func == (lhs: ChangeEvent, rhs: ChangeEvent) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.sequence == rhs.sequence && lhs.kind == rhs.kind && lhs.documentID == rhs.documentID
                && lhs.document == rhs.document && lhs.previous == rhs.previous && lhs.json == rhs.json)
    }

    /// `{"document":…,"id":…}`: the bytes `JSONCoding.encoder` makes of the pair (sorted keys,
    /// no `document` key for a delete), with the stored body spliced in rather than encoded again.
    private static func json(documentID: String, document: Document?, storedBody: Data?) -> [UInt8] {
        var json = JSONWriter(capacity: (storedBody?.count ?? 64) + documentID.utf8.count + 32)
        json.raw("{")
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
}
