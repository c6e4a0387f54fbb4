import Base
import Metrics

/// Group commit for one replica's upserts: writes that arrive while a commit is in
/// flight wait and go together in the next one, so one transaction (and one WAL flush
/// under the head counter's lock) carries many. A waiter that gives up (its client's
/// timeout) before its batch is taken is left out and never committed.
///
/// Each write may name what to do once its group is durable (`committed`): those run for the whole
/// group, in order, before any of its writers resumes, so the replica applies a group as one run
/// (one index write) rather than one write at a time as each writer wakes.
///
/// With a `limit`, each write is answered within it, however long it waited for a group: a write
/// whose time ran out while queued is failed (`expired`) and never committed, and a group's commit
/// is given the time its oldest write has left. That is one timer per group, where a time limit
/// around each write cost a task and a timer per write.
final class GroupCommit<Item: Sendable>: Sendable {
    /// One write waiting for its sequence number.
    final class Waiter: Sendable {
        let item: Item
        /// When its writer is to be answered at the latest (with a `limit`).
        let deadline: ContinuousClock.Instant?
        /// Told the item's sequence number once its group is durable, whether or not its writer still waits.
        let committed: (@Sendable (Int64) -> Void)?
        private let continuation: Locked<CheckedContinuation<Int64, any Error>?>

        init(
            _ item: Item, deadline: ContinuousClock.Instant?, committed: (@Sendable (Int64) -> Void)?,
            _ continuation: CheckedContinuation<Int64, any Error>
        ) {
            self.item = item
            self.deadline = deadline
            self.committed = committed
            self.continuation = Locked(continuation)
        }

        /// Resumes once; false if it was resumed (or gave up) before.
        @discardableResult
        func finish(_ result: Result<Int64, any Error>) -> Bool {
            guard let continuation = continuation.withLock({ taken in defer { taken = nil }; return taken }) else { return false }
            continuation.resume(with: result)
            return true
        }

        var isWaiting: Bool { continuation.withLock { $0 != nil } }
    }

    private struct State {
        var pending: [Waiter] = []
        var flushing = false
    }

    private let state = Locked(State())
    private let maxBatch: Int
    /// Groups committed and the writes they carried: writes per group is the one divided by the
    /// other (`/metrics`), how much the grouping saves under the load of the moment. Looked up per
    /// group, not kept: a store is opened before the metrics system is bootstrapped.
    private static var groups: Counter { Counter(label: "signalbox_commit_groups_total") }
    private static var grouped: Counter { Counter(label: "signalbox_commit_group_writes_total") }
    /// Commits the items in order, within the time given (with a `limit`); returns the sequence
    /// number the first one got (the rest follow it).
    private let commit: @Sendable ([Item], Duration?) async throws -> Int64
    /// How long a write may take in all, queued and committed; nil: no limit here.
    private let limit: Duration?
    /// The error of a write whose time ran out before its group was taken.
    private let expired: @Sendable () -> any Error
    /// Told when the groups run out (nothing left to commit): the end of a busy stretch, whose
    /// groups may share what one group would set up and tear down (PostgreSQL: a pool's lease).
    private let idle: (@Sendable () -> Void)?

    init(maxBatch: Int, commit: @escaping @Sendable ([Item]) async throws -> Int64) {
        self.maxBatch = max(maxBatch, 1)
        self.commit = { items, _ in try await commit(items) }
        limit = nil
        expired = { CancellationError() }
        idle = nil
    }

    /// Every write answered within `limit`: `commit` gets the time the group's oldest write has left.
    /// `idle` runs (under the queue's lock, before another group can start) once the groups run out.
    init(
        maxBatch: Int, limit: Duration, expired: @escaping @Sendable () -> any Error, idle: (@Sendable () -> Void)? = nil,
        commit: @escaping @Sendable (_ items: [Item], _ within: Duration?) async throws -> Int64
    ) {
        self.maxBatch = max(maxBatch, 1)
        self.commit = commit
        self.limit = limit
        self.expired = expired
        self.idle = idle
    }

    /// The item's sequence number once its batch committed; a cancelled caller stops waiting at once.
    /// `committed` runs once the batch is durable, before any writer of the batch resumes (see above).
    func submit(_ item: Item, committed: (@Sendable (Int64) -> Void)? = nil) async throws -> Int64 {
        let holder = Locked<Waiter?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let waiter = Waiter(item, deadline: limit.map { ContinuousClock.now + $0 }, committed: committed, continuation)
                holder.withLock { $0 = waiter }
                let start = state.withLock { state -> Bool in
                    state.pending.append(waiter)
                    defer { state.flushing = true }
                    return !state.flushing
                }
                if start { Task { await flush() } }
                if Task.isCancelled { waiter.finish(.failure(CancellationError())) }
            }
        } onCancel: {
            holder.withLock { $0 }?.finish(.failure(CancellationError()))
        }
    }

    /// Writes waiting for a group (for tests).
    var waitingCount: Int { state.withLock { $0.pending.count } }

    private func flush() async {
        while true {
            let now = ContinuousClock.now
            let (batch, late) = state.withLock { state -> ([Waiter], [Waiter]) in
                state.pending.removeAll { !$0.isWaiting }
                // Queued past their time (behind a group that took long): answered now, never committed.
                let late = state.pending.filter { $0.deadline.map { $0 <= now } ?? false }
                if !late.isEmpty { state.pending.removeAll { $0.deadline.map { $0 <= now } ?? false } }
                guard !state.pending.isEmpty else {
                    idle?()
                    state.flushing = false
                    return ([], late)
                }
                let taken = Array(state.pending.prefix(maxBatch))
                state.pending.removeFirst(taken.count)
                return (taken, late)
            }
            for waiter in late { waiter.finish(.failure(expired())) }
            guard !batch.isEmpty else { return }
            do {
                // The oldest write's time left (the writes queue in order, so it is the first's).
                let left = batch.compactMap(\.deadline).min().map { $0 - now }
                let first = try await commit(batch.map(\.item), left)
                Self.groups.increment()
                Self.grouped.increment(by: batch.count)
                for (offset, waiter) in batch.enumerated() { waiter.committed?(first + Int64(offset)) }
                for (offset, waiter) in batch.enumerated() { waiter.finish(.success(first + Int64(offset))) }
            } catch {
                for waiter in batch { waiter.finish(.failure(error)) }
            }
        }
    }
}
