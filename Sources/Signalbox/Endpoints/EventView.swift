import Base
import HTTP
import Search

/// One `/events` client's view of the change feed, as its grant allows: the collections it may
/// see and, for a tenant token, only the documents inside its rule's filter.
///
/// For a token, a document change is judged on the document before and after it:
/// - after inside the filter: the change as it is;
/// - before inside, after outside (or deleted): `document.deleted` for that id, so the tenant
///   drops it;
/// - neither: nothing; the tenant never learns of it.
/// A change whose documents the feed does not have decoded (read back from the log at start)
/// is judged on what it has, never widened: an upsert without its document is not sent.
struct EventView: Sendable {
    let grant: Grant
    let collections: CollectionCatalog
    let isPublic: @Sendable (String) -> Bool

    typealias Item = EventEndpoints.Feed.Item

    /// Whether the client gets each item whole or not at all, judged by its collection alone
    /// (any holder but a tenant token): ``admits(_:)`` then decides, and nothing is made for it.
    var judgesCollectionsOnly: Bool {
        if case .token = grant.holder { return false }
        return true
    }

    /// Whether the holder may see `item`'s collection: every position and reset, the changes
    /// of collections it may see.
    func admits(_ item: Item) -> Bool {
        guard case .change(let change) = item else { return true }
        return grant.maySee(change.collection, isPublic: change.isPublic(isPublic), action: .events)
    }

    /// What this client gets for `item`: the item, a `document.deleted` made for it, or nothing.
    func view(_ item: Item) -> Item? {
        guard case .change(let change) = item else { return item }
        let collection = change.collection
        guard grant.maySee(collection, isPublic: change.isPublic(isPublic), action: .events) else { return nil }
        guard case .token(let token, _) = grant.holder else { return item }
        let event = change.event
        if event.kind.isCollectionChange { return item }
        guard let served = collections.named(collection), let rule = try? grant.tenantRule(for: collection, schema: served.schema) else {
            return nil
        }
        guard rule.filter != nil else { return item }
        switch change.candidates.verdict(event, token: token, rule: rule, schema: served.schema) {
        case .send: return item
        case .sendDeleted: return .change(change.deleted)
        case .skip: return nil
        }
    }
}
