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
    public let sequence: Int64
    public let kind: Kind
    /// The document's id.
    public let documentID: String
    /// The new document (upserts), or nil (deletes).
    public let document: Document?
    /// The document before the change, if it existed (the lookup cache uses it to tell whom the change affects).
    public let previous: Document?
    /// The event as `/events` sends it, encoded once when the change is made;
    /// every client is sent these same bytes.
    public let encoded: EncodedEvent

    /// - Parameter storedBody: the document's JSON exactly as the store keeps it
    ///   (`JSONEncoder`, sorted keys, slashes unescaped), reused for the event's
    ///   data; nil to encode `document` here.
    public init(sequence: Int64, kind: Kind, documentID: String, document: Document?, previous: Document?, storedBody: Data? = nil) {
        self.sequence = sequence
        self.kind = kind
        self.documentID = documentID
        self.document = document
        self.previous = previous
        encoded = Self.encode(sequence: sequence, kind: kind, documentID: documentID, document: document, storedBody: storedBody)
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
