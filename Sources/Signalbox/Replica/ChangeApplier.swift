import Base
import Dispatch
import Foundation
import Rx
import Search

/// Applies committed changes to this replica (index, lookup cache, change feed) in
/// sequence order, each exactly once, whichever way they arrive: from this replica's
/// own writes (SQLite or PostgreSQL: every write comes through here before it is
/// answered), or from the change log another replica's commits went to.
///
/// A change that arrives before the one it follows waits until the gap is filled;
/// ``onGap`` asks the follower to read the log then.
final class ChangeApplier: Sendable {
    /// One committed change, with its document decoded if the caller had it.
    struct Change: Sendable {
        let sequence: Int64
        let id: String
        /// The new document; nil for a delete.
        let document: Document?
        /// The document's JSON as the store keeps it, reused for the event's bytes.
        let body: Data?

        init(sequence: Int64, id: String, document: Document?, body: Data?) {
            self.sequence = sequence
            self.id = id
            self.document = document
            self.body = body
        }

        /// A change read back from the store, its document decoded.
        init(_ stored: StoredChange) throws {
            let document = try stored.body.map { try JSONDecoder().decode(Document.self, from: $0) }
            self.init(sequence: stored.sequence, id: stored.id, document: document, body: stored.body)
        }
    }

    private struct State {
        var applied: Int64
        var pending: [Int64: Change] = [:]
    }

    private let index: SearchIndex
    private let lookups: SearchLookups
    private let feed: any ChangePublisher
    private let metrics: ServiceMetrics
    private let state: Locked<State>
    private let queue = DispatchQueue(label: "signalbox.apply")
    private let gapHandler = Locked<(@Sendable () -> Void)?>(nil)
    /// The sequence number of the latest change this replica serves.
    let applied: BehaviorRelay<Int64>

    init(index: SearchIndex, lookups: SearchLookups, feed: any ChangePublisher, metrics: ServiceMetrics, applied: Int64) {
        self.index = index
        self.lookups = lookups
        self.feed = feed
        self.metrics = metrics
        state = Locked(State(applied: applied))
        self.applied = BehaviorRelay(value: applied)
    }

    /// Called (on the apply queue) when changes wait behind a missing one.
    func onGap(_ handler: @escaping @Sendable () -> Void) {
        gapHandler.withLock { $0 = handler }
    }

    /// Queues `changes` and applies every one that is next in order.
    func offer(_ changes: [Change]) {
        guard !changes.isEmpty else { return }
        queue.async { [self] in
            let waiting = state.withLock { state in
                for change in changes where change.sequence > state.applied { state.pending[change.sequence] = change }
                return !state.pending.isEmpty
            }
            guard waiting else { return }
            drain()
        }
    }

    /// Jumps to `head` with the latest version of each document changed since the applied
    /// one, for a replica whose missed changes are no longer all in the log: no events for
    /// them, so ``ChangeFeed`` resets its clients; the log's newest changes (`recentChanges`,
    /// ending at `head`) become its history, so later resumes within the log are served.
    func catchUp(to head: Int64, documents: [Change], recentChanges: [Change] = []) {
        queue.async { [self] in
            let from = state.withLock { $0.applied }
            guard head > from else { return }
            for change in documents where change.sequence > from { apply(change, publish: false) }
            state.withLock { state in
                state.applied = head
                state.pending = state.pending.filter { $0.key > head }
            }
            feed.restart(at: head, history: recentChanges.map(Self.event))
            applied.accept(head)
            drain()
        }
    }

    /// Applies `change`, a write this replica has just committed, and returns once it is applied
    /// (searchable, and sent to `/events`), or once `limit` has passed: on PostgreSQL a change
    /// may wait behind one another replica committed first, which the follower has yet to read.
    /// Returns whether it was applied in time.
    @discardableResult
    func apply(_ change: Change, waitingAtMost limit: RxTimeInterval) async -> Bool {
        offer([change])
        do {
            try await applied(atLeast: change.sequence, within: limit).value
            return true
        } catch {
            return false
        }
    }

    /// Completes once this replica has applied `sequence`; fails with ``NotAppliedInTime`` after `limit`.
    func applied(atLeast sequence: Int64, within limit: RxTimeInterval) -> Completable {
        if applied.value >= sequence { return .empty() }
        return applied.asObservable()
            .filter { $0 >= sequence }
            .take(1)
            .timeout(limit, scheduler: Self.timers)
            .catch { _ in .error(NotAppliedInTime(sequence: sequence, limit: limit)) }
            .asCompletable()
    }

    private static let timers = ConcurrentDispatchQueueScheduler(qos: .default)

    /// Applies what is next in order; on the apply queue.
    private func drain() {
        var last: Int64?
        while let next = state.withLock({ state -> Change? in
            state.pending.removeValue(forKey: state.applied + 1).map { change in
                state.applied = change.sequence
                return change
            }
        }) {
            apply(next, publish: true)
            last = next.sequence
        }
        if let last { applied.accept(last) }
        if state.withLock({ !$0.pending.isEmpty }) { gapHandler.withLock { $0 }?() }
    }

    /// The event of a change read back from the log (for the history: no previous version needed).
    static func event(_ change: Change) -> ChangeEvent {
        ChangeEvent(
            sequence: change.sequence, kind: change.document == nil ? .deleted : .upserted,
            documentID: change.id, document: change.document, previous: nil, storedBody: change.body)
    }

    private func apply(_ change: Change, publish: Bool) {
        let previous = index.document(id: change.id)
        if let document = change.document {
            index.upsert(document)
        } else if previous != nil {
            index.delete(id: change.id)
        }
        let event = ChangeEvent(
            sequence: change.sequence, kind: change.document == nil ? .deleted : .upserted,
            documentID: change.id, document: change.document, previous: previous, storedBody: change.body)
        lookups.apply(event)
        if publish { feed.publish(event) }
        metrics.documentCount(index.count)
    }
}

/// A replica did not apply the change a request waits for in time (503 with `Retry-After`).
struct NotAppliedInTime: Error, Sendable {
    let sequence: Int64
    let limit: RxTimeInterval

    var waitedDescription: String {
        if case .milliseconds(let milliseconds) = limit { return "\(Double(milliseconds) / 1000) s" }
        return "\(limit)"
    }
}
