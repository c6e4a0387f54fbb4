import Base
import DequeModule
import Dispatch
import Foundation
import Rx
import Search

/// Applies committed changes to this replica (index, lookup cache, change feed) in
/// sequence order, each exactly once, whichever way they arrive: from this replica's
/// own commits, or from the change log another replica's commits went to.
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
        /// The newest changes applied, oldest first, for ``HistoryCheck`` after a failover.
        var recent: Deque<HistoryCheck.Applied> = []
    }

    /// How many applied changes are kept for ``HistoryCheck`` (ids and digests only, not bodies):
    /// a failover that lost more changes than this (and than the log's `events.history`) makes
    /// a replica that applied them start over instead of going back.
    static let checkedChanges = 16_384

    private let index: SearchIndex
    private let lookups: SearchLookups
    private let feed: ChangeFeed
    private let metrics: ServiceMetrics
    private let state: Locked<State>
    private let queue = DispatchQueue(label: "signalbox.apply")
    private let gapHandler = Locked<(@Sendable () -> Void)?>(nil)
    /// The sequence number of the latest change this replica serves.
    let applied: BehaviorRelay<Int64>

    init(index: SearchIndex, lookups: SearchLookups, feed: ChangeFeed, metrics: ServiceMetrics, applied: Int64) {
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
            apply(documents.filter { $0.sequence > from }, publish: false)
            state.withLock { state in
                state.applied = head
                state.pending = state.pending.filter { $0.key > head }
            }
            feed.restart(at: head, history: recentChanges.map(Self.event))
            applied.accept(head)
            drain()
        }
    }

    /// The newest changes applied (at most ``checkedChanges``), oldest first.
    func recentlyApplied() -> [HistoryCheck.Applied] {
        state.withLock { Array($0.recent) }
    }

    /// Goes back to `sequence` after a failover whose new primary lacks the changes this replica
    /// applied after it (``HistoryCheck``): `corrections` put each document those changes touched
    /// back as the store holds it now, without events; the feed's clients get a reset, its history
    /// becomes the store's log up to `sequence` (`history`), and the changes after `sequence` are
    /// then applied from the store's log as usual. Returns once done.
    func rewind(to sequence: Int64, corrections: [Change], history: [Change]) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                apply(corrections, publish: false, record: false)
                state.withLock { state in
                    state.applied = sequence
                    state.pending.removeAll()
                    while let last = state.recent.last, last.sequence > sequence { state.recent.removeLast() }
                }
                feed.restart(at: sequence, history: history.map(Self.event))
                applied.accept(sequence)
                done.resume()
            }
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

    /// Applies what is next in order, all that is there at once; on the apply queue.
    private func drain() {
        let run = state.withLock { state -> [Change] in
            var run: [Change] = []
            while let next = state.pending.removeValue(forKey: state.applied + 1) {
                state.applied = next.sequence
                run.append(next)
            }
            return run
        }
        if let last = run.last {
            apply(run, publish: true)
            applied.accept(last.sequence)
        }
        if state.withLock({ !$0.pending.isEmpty }) { gapHandler.withLock { $0 }?() }
    }

    /// The event of a change read back from the log (for the history: no previous version needed).
    static func event(_ change: Change) -> ChangeEvent {
        ChangeEvent(
            sequence: change.sequence, kind: change.document == nil ? .deleted : .upserted,
            documentID: change.id, document: change.document, previous: nil, storedBody: change.body)
    }

    /// Applies `changes` in order: the index takes them as one write (one rebuild of its delta for
    /// the whole run, not one per change: issue 27's write throughput), then each change's event goes
    /// to the lookup cache and, with `publish`, to the feed, in order.
    private func apply(_ changes: [Change], publish: Bool, record: Bool = true) {
        guard !changes.isEmpty else { return }
        if record {
            let applied = changes.map {
                HistoryCheck.Applied(sequence: $0.sequence, id: $0.id, digest: HistoryCheck.digest(id: $0.id, body: $0.body))
            }
            state.withLock { state in
                state.recent.append(contentsOf: applied)
                if state.recent.count > Self.checkedChanges { state.recent.removeFirst(state.recent.count - Self.checkedChanges) }
            }
        }
        // Each event's previous version: the index's, or an earlier change of the same run's.
        var latest: [String: Document?] = [:]
        var events: [ChangeEvent] = []
        events.reserveCapacity(changes.count)
        for change in changes {
            let previous = latest[change.id] ?? index.document(id: change.id)
            latest[change.id] = .some(change.document)
            events.append(ChangeEvent(
                sequence: change.sequence, kind: change.document == nil ? .deleted : .upserted,
                documentID: change.id, document: change.document, previous: previous, storedBody: change.body))
        }
        index.apply(changes.map { (id: $0.id, document: $0.document) })
        for event in events {
            lookups.apply(event)
            if publish { feed.publish(event) }
        }
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
