import Base
import Search

/// What the tenant views of `/events` work out about one change, once for all their clients: its
/// documents before and after it, prepared (tokenized, strings folded) for filters, and the verdict
/// of each token's rule. A thousand clients of ten tokens judge a change ten times, not a thousand.
/// Empty until a tenant's view first asks.
final class ChangeCandidates: Sendable {
    /// What a token's clients get for the change.
    enum Verdict: Sendable {
        /// The change as it is: the document is inside the rule after it.
        case send
        /// `document.deleted` for its id: the document was inside the rule and is no longer.
        case sendDeleted
        /// Nothing: the document is outside the rule before and after.
        case skip
    }

    struct Prepared: Sendable {
        let schema: CollectionSchema
        let after: CollectionMatchCandidate?
        let before: CollectionMatchCandidate?
    }

    private struct State {
        var prepared: Prepared?
        /// By ``VerifiedToken/serial``, for the schema `prepared` was made for.
        var verdicts: [Int: Verdict] = [:]
    }

    private let state = Locked(State())
    private let deletedFrame = Locked<EventEndpoints.FramedChange?>(nil)

    /// The change's `document.deleted` frame, made by `make` for the first client that needs it.
    func deleted(_ make: () -> EventEndpoints.FramedChange) -> EventEndpoints.FramedChange {
        if let made = deletedFrame.withLock({ $0 }) { return made }
        let made = make()
        deletedFrame.withLock { $0 = $0 ?? made }
        return deletedFrame.withLock { $0 } ?? made
    }

    /// The verdict of `token`'s `rule` (compiled for `schema`) on `event`: cached per token.
    func verdict(_ event: ChangeEvent, token: VerifiedToken, rule: VerifiedToken.Compiled, schema: CollectionSchema) -> Verdict {
        if let found = state.withLock({ $0.prepared?.schema == schema ? $0.verdicts[token.serial] : nil }) { return found }
        let prepared = prepared(event, schema: schema)
        let verdict: Verdict =
            rule.admits(prepared.after) ? .send : (rule.admits(prepared.before) ? .sendDeleted : .skip)
        state.withLock { state in
            if state.prepared?.schema == schema { state.verdicts[token.serial] = verdict }
        }
        return verdict
    }

    /// `event`'s documents under `schema` (again, and the verdicts dropped, if the collection's schema changed).
    private func prepared(_ event: ChangeEvent, schema: CollectionSchema) -> Prepared {
        if let found = state.withLock({ $0.prepared }), found.schema == schema { return found }
        let (after, before) = Self.documents(of: event)
        let made = Prepared(
            schema: schema, after: after.map { CollectionMatchCandidate($0, schema: schema) },
            before: before.map { CollectionMatchCandidate($0, schema: schema) })
        state.withLock { $0 = State(prepared: made) }
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
