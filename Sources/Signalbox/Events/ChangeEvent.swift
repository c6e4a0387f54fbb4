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
}
