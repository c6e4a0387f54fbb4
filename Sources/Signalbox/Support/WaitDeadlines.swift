import Base
import DequeModule
import Dispatch

/// Bounds many waits with one timer: each ``AppliedWaiter`` added is finished with `false` at its
/// deadline unless something finished it first. A timer of its own per write (a
/// `DispatchQueue.asyncAfter` of `writes.applyWait`, 30 s) cost about 2,000 instructions to set and
/// as much again when it fired long after the write was answered, with tens of thousands of them
/// pending at thousands of writes a second.
///
/// The waits are kept in deadline order (they come mostly in that order already), those
/// finished are dropped from the front as new ones come, and one timer is armed for the
/// earliest deadline still waiting. Behind one wait still waiting at the front, the finished
/// ones are swept out whenever the queue has doubled since the last sweep: at thousands of
/// writes a second they would otherwise pile up for the whole `writes.applyWait`.
final class WaitDeadlines: Sendable {
    private struct Entry {
        let deadline: DispatchTime
        let waiter: AppliedWaiter
    }

    private struct State {
        var entries: Deque<Entry> = []
        /// The deadline the timer is armed for, if it is.
        var armed: DispatchTime?
        /// The queue's length at which the finished waits behind the front are swept out.
        var sweepAt = WaitDeadlines.smallestSweep
    }

    private static let smallestSweep = 1024

    private let state = Locked(State())
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Finishes `waiter` with `false` at `deadline` unless it is finished before.
    func add(_ waiter: AppliedWaiter, deadline: DispatchTime) {
        let arm = state.withLock { state -> Bool in
            while let first = state.entries.first, !first.waiter.isWaiting { state.entries.removeFirst() }
            if state.entries.count >= state.sweepAt {
                state.entries.removeAll { !$0.waiter.isWaiting }
                state.sweepAt = max(Self.smallestSweep, state.entries.count * 2)
            }
            var position = state.entries.endIndex
            while position > state.entries.startIndex, state.entries[position - 1].deadline > deadline { position -= 1 }
            state.entries.insert(Entry(deadline: deadline, waiter: waiter), at: position)
            guard state.armed.map({ deadline < $0 }) ?? true else { return false }
            state.armed = deadline
            return true
        }
        if arm { queue.asyncAfter(deadline: deadline) { [self] in expire() } }
    }

    /// Waits still held (finished or not) until the front is cleared: for tests.
    var heldCount: Int { state.withLock { $0.entries.count } }

    /// Finishes the waits whose deadline passed, and arms the timer for the next one still waiting.
    private func expire() {
        let now = DispatchTime.now()
        let (late, next) = state.withLock { state -> ([AppliedWaiter], DispatchTime?) in
            var late: [AppliedWaiter] = []
            while let first = state.entries.first, first.deadline <= now || !first.waiter.isWaiting {
                state.entries.removeFirst()
                if first.waiter.isWaiting { late.append(first.waiter) }
            }
            // A timer armed for an earlier deadline (a shorter wait that came later) may still come: keep the earliest.
            if let armed = state.armed, armed > now { return (late, nil) }
            state.armed = state.entries.first?.deadline
            return (late, state.armed)
        }
        for waiter in late { waiter.finish(false) }
        if let next { queue.asyncAfter(deadline: next) { [self] in expire() } }
    }
}
