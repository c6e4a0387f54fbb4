import Foundation
import HTTP
import Search

/// One change to the documents, as `/events` streams it.
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
    /// The event as `/events` sends it, encoded once when the change is made;
    /// every client is sent these same bytes.
    public var encoded: EncodedEvent { storage.encoded }

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
        let encoded: EncodedEvent

        init(sequence: Int64, kind: Kind, documentID: String, document: Document?, previous: Document?, encoded: EncodedEvent) {
            self.sequence = sequence
            self.kind = kind
            self.documentID = documentID
            self.document = document
            self.previous = previous
            self.encoded = encoded
        }
    }

    /// An event, encoded once here for every client.
    ///
    /// - Parameter sequence: the change's id in the change log.
    /// - Parameter kind: whether the document was upserted or deleted.
    /// - Parameter documentID: the changed document's id.
    /// - Parameter document: the document after the change; nil after a delete.
    /// - Parameter previous: the document before the change; nil when it is new.
    /// - Parameter storedBody: the document's JSON exactly as the store keeps it
    ///   (`JSONEncoder`, sorted keys, slashes unescaped), reused for the event's
    ///   data; nil to encode `document` here.
    public init(sequence: Int64, kind: Kind, documentID: String, document: Document?, previous: Document?, storedBody: Data? = nil) {
        let encoded = Self.encode(sequence: sequence, kind: kind, documentID: documentID, document: document, storedBody: storedBody)
        storage = Storage(sequence: sequence, kind: kind, documentID: documentID, document: document, previous: previous, encoded: encoded)
    }

    public static func == (lhs: ChangeEvent, rhs: ChangeEvent) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.sequence == rhs.sequence && lhs.kind == rhs.kind && lhs.documentID == rhs.documentID
                && lhs.document == rhs.document && lhs.previous == rhs.previous && lhs.encoded == rhs.encoded)
    }

    /// `id: <sequence>`, `event: <kind>`, `data: {"document":…,"id":…}`: the
    /// same bytes `JSONEncoder` made per client before (sorted keys, no
    /// `document` key for a delete).
    private static func encode(sequence: Int64, kind: Kind, documentID: String, document: Document?, storedBody: Data?) -> EncodedEvent {
        var json = JSONWriter(capacity: (storedBody?.count ?? 64) + documentID.utf8.count + 32)
        json.raw("{")
        if let body = storedBody ?? document.flatMap({ try? encoder.encode($0) }) {
            json.key("document")
            json.raw(Array(body))
            json.raw(",")
        }
        json.key("id")
        json.string(documentID)
        json.raw("}")
        let event = ServerSentEvent(id: String(sequence), event: kind.rawValue, data: String(decoding: json.bytes, as: UTF8.self))
        return EncodedEvent(event)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
