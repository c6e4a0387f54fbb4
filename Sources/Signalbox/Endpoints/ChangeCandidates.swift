import Base
import Search

/// A change's document before and after it, prepared once (tokenized, strings folded) for the
/// tenant filters of every `/events` client that must judge it: with a thousand token clients,
/// a change is prepared once, not a thousand times. Empty until a tenant's view first asks.
final class ChangeCandidates: Sendable {
    struct Prepared: Sendable {
        let schema: CollectionSchema
        let after: CollectionMatchCandidate?
        let before: CollectionMatchCandidate?
    }

    private let prepared = Locked<Prepared?>(nil)

    /// `event`'s documents under `schema` (again only if the collection's schema changed since).
    func prepared(_ event: ChangeEvent, schema: CollectionSchema) -> Prepared {
        if let found = prepared.withLock({ $0 }), found.schema == schema { return found }
        let (after, before) = Self.documents(of: event)
        let made = Prepared(
            schema: schema, after: after.map { CollectionMatchCandidate($0, schema: schema) },
            before: before.map { CollectionMatchCandidate($0, schema: schema) })
        prepared.withLock { $0 = made }
        return made
    }

    /// The document after and before `event`, as its collection's schema reads them.
    private static func documents(of event: ChangeEvent) -> (after: CollectionDocument?, before: CollectionDocument?) {
        if event.collection == citiesCollection {
            return (event.document.map(CitiesCollection.document), event.previous.map(CitiesCollection.document))
        }
        return (event.record, event.previousRecord)
    }
}
