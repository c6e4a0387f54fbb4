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
///
/// Pipelined (PostgreSQL): a group's commit has two stages. The first numbers it (its statement
/// returned) and the next group is taken as soon as it returns; the second (returned by the
/// first) makes it durable while later groups are numbered, so several groups wait for one WAL
/// flush together. Groups are still told their numbers and answered in the order they were
/// numbered, each only once its own second stage returned.
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
        /// Groups numbered whose second stage has not ended (pipelined).
        var settling = 0
        /// The last group numbered, until answered (pipelined): the next is answered after it.
        var answering: Task<Void, Never>?
    }

    /// A group's second stage (pipelined): returns the number its first item got once the group is
    /// durable, given the time the group's oldest write has left then.
    typealias Settle = @Sendable (_ within: Duration?) async throws -> Int64

    private let state = Locked(State())
    private let maxBatch: Int
    /// Groups committed and the writes they carried: writes per group is the one divided by the
    /// other (`/metrics`), how much the grouping saves under the load of the moment. Looked up per
    /// group, not kept: a store is opened before the metrics system is bootstrapped.
    private static var groups: Counter { Counter(label: "signalbox_commit_groups_total") }
    private static var grouped: Counter { Counter(label: "signalbox_commit_group_writes_total") }
    /// Commits the items in order, within the time given (with a `limit`); returns the stage that
    /// tells the sequence number the first one got (the rest follow it).
    private let commit: @Sendable ([Item], Duration?) async throws -> Settle
    /// Whether a group's second stage runs while the next group is numbered.
    private let pipelined: Bool
    /// How long a write may take in all, queued and committed; nil: no limit here.
    private let limit: Duration?
    /// The error of a write whose time ran out before its group was taken.
    private let expired: @Sendable () -> any Error
    /// Told when the groups run out (nothing left to commit): the end of a busy stretch, whose
    /// groups may share what one group would set up and tear down (PostgreSQL: a pool's lease).
    private let idle: (@Sendable () -> Void)?

    init(maxBatch: Int, commit: @escaping @Sendable ([Item]) async throws -> Int64) {
        self.maxBatch = max(maxBatch, 1)
        self.commit = { items, _ in
            let first = try await commit(items)
            return { _ in first }
        }
        pipelined = false
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
        self.commit = { items, within in
            let first = try await commit(items, within)
            return { _ in first }
        }
        pipelined = false
        self.limit = limit
        self.expired = expired
        self.idle = idle
    }

    /// Pipelined (above): `number` commits a group far enough for the next to follow (its
    /// numbers taken) and returns its second stage, which makes it durable. `idle` runs once no
    /// group is queued, numbered or settling.
    init(
        maxBatch: Int, limit: Duration, expired: @escaping @Sendable () -> any Error, idle: (@Sendable () -> Void)? = nil,
        pipelined number: @escaping @Sendable (_ items: [Item], _ within: Duration?) async throws -> Settle
    ) {
        self.maxBatch = max(maxBatch, 1)
        commit = number
        pipelined = true
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
                    if state.settling == 0 { idle?() }
                    state.flushing = false
                    return ([], late)
                }
                let taken = Array(state.pending.prefix(maxBatch))
                state.pending.removeFirst(taken.count)
                if pipelined { state.settling += 1 }
                return (taken, late)
            }
            for waiter in late { waiter.finish(.failure(expired())) }
            guard !batch.isEmpty else { return }
            // The oldest write's deadline (the writes queue in order, so it is the first's).
            let deadline = batch.compactMap(\.deadline).min()
            let settle: Settle
            do {
                settle = try await commit(batch.map(\.item), deadline.map { $0 - now })
            } catch {
                if pipelined { settled() }
                for waiter in batch { waiter.finish(.failure(error)) }
                continue
            }
            guard pipelined else {
                await answer(batch, settle, deadline: deadline)
                continue
            }
            // Under the lock: the next group, numbered by this loop or a later one, is answered after this one.
            state.withLock { state in
                let before = state.answering
                state.answering = Task {
                    await answer(batch, settle, deadline: deadline, after: before)
                    settled()
                }
            }
        }
    }

    /// Runs a group's second stage and answers its writers, after the group before it (pipelined).
    private func answer(_ batch: [Waiter], _ settle: Settle, deadline: ContinuousClock.Instant?, after previous: Task<Void, Never>? = nil) async {
        let result: Result<Int64, any Error>
        do {
            result = .success(try await settle(deadline.map { $0 - ContinuousClock.now }))
        } catch {
            result = .failure(error)
        }
        await previous?.value
        switch result {
        case .success(let first):
            Self.groups.increment()
            Self.grouped.increment(by: batch.count)
            for (offset, waiter) in batch.enumerated() { waiter.committed?(first + Int64(offset)) }
            for (offset, waiter) in batch.enumerated() { waiter.finish(.success(first + Int64(offset))) }
        case .failure(let error):
            for waiter in batch { waiter.finish(.failure(error)) }
        }
    }

    /// A pipelined group's second stage ended: the last one with nothing queued ends the busy stretch.
    private func settled() {
        state.withLock { state in
            state.settling -= 1
            guard state.settling == 0 else { return }
            state.answering = nil
            if !state.flushing { idle?() }
        }
    }
}
