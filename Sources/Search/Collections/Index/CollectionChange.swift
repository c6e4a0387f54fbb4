/// One write to a collection.
public enum CollectionChange: Sendable, Hashable {
    /// Adds the document or replaces the one with its id.
    case upsert(CollectionDocument)
    /// Removes the document with this id, if there is one.
    case delete(id: String)

    public var id: String {
        switch self {
        case .upsert(let document): return document.id
        case .delete(let id): return id
        }
    }
}

/// What one change did: the document it replaced or removed (nil if there was none), so that
/// live queries can test the old version as well as the new one.
public struct CollectionChangeOutcome: Sendable, Hashable {
    public let change: CollectionChange
    public let previous: CollectionDocument?

    public init(change: CollectionChange, previous: CollectionDocument?) {
        self.change = change
        self.previous = previous
    }
}
