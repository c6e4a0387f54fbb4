import Base

/// Counts how many of the changes numbered `sequences` created a document (none had its id
/// before) and how many replaced one, as the ``ChangeApplier`` applies them: an import's batch
/// is counted by the look-up of each id its index write makes anyway (to mask the version it
/// replaces), not by a look-up of its own before. Applied in order, a document written twice
/// in one import is created once, then updated: the second write finds the first in the index,
/// or earlier in the same write.
///
/// An import's tally is made before its batch is committed, when its numbers are not known yet
/// (``init(after:)``): on PostgreSQL the follower may read the batch back from the log and apply
/// it before the commit returns to the import. Until ``close(to:)`` it keeps the outcome of each
/// change applied after `after`, and then counts those of the batch's numbers.
final class WriteTally: Sendable {
    struct Counts: Sendable, Equatable {
        var created = 0
        var updated = 0

        var total: Int { created + updated }
    }

    private struct State {
        /// The batch's numbers; nil while it is committed.
        var sequences: ClosedRange<Int64>?
        var counts = Counts()
        /// While open, whether each change applied (numbered after `after`) replaced a document.
        var outcomes: [Int64: Bool] = [:]
        /// The batch was not committed: nothing more to count.
        var abandoned = false
    }

    /// The numbers counted are after this one.
    private let after: Int64
    private let state: Locked<State>

    /// A tally of the changes numbered `sequences`.
    init(sequences: ClosedRange<Int64>) {
        after = sequences.lowerBound - 1
        state = Locked(State(sequences: sequences))
    }

    /// An open tally, of a batch about to be committed whose numbers will all be after `after`.
    init(after: Int64) {
        self.after = after
        state = Locked(State())
    }

    /// What was counted so far: all of the changes once the applier has served the last of them.
    var counted: Counts { state.withLock { $0.counts } }

    /// The batch's numbers, now that it is committed: what was kept for them is counted.
    func close(to sequences: ClosedRange<Int64>) {
        state.withLock { state in
            state.sequences = sequences
            for (sequence, replaced) in state.outcomes where sequences.contains(sequence) {
                if replaced { state.counts.updated += 1 } else { state.counts.created += 1 }
            }
            state.outcomes = [:]
        }
    }

    /// The batch failed to commit: nothing is counted, and the applier lets go of the tally.
    func abandon() {
        state.withLock { state in
            state.abandoned = true
            state.outcomes = [:]
        }
    }

    /// Whether changes numbered in `range` may be counted here.
    func wants(_ range: ClosedRange<Int64>) -> Bool {
        guard range.upperBound > after else { return false }
        return state.withLock { state in
            guard !state.abandoned else { return false }
            return state.sequences.map { $0.overlaps(range) } ?? true
        }
    }

    /// Whether every change it counts is served once `served` is (the applier drops it then).
    func isDone(servedThrough served: Int64) -> Bool {
        state.withLock { state in state.abandoned || (state.sequences.map { $0.upperBound <= served } ?? false) }
    }

    /// Counts the changes numbered `applied` (a run the applier applied, in order) that fall in
    /// the batch's numbers, or keeps their outcomes while those are not known;
    /// `replaced(offset)` tells whether the change at `offset` replaced a document.
    func count(_ applied: [Int64], replaced: (Int) -> Bool) {
        state.withLock { state in
            guard !state.abandoned else { return }
            guard let sequences = state.sequences else {
                for (offset, sequence) in applied.enumerated() where sequence > after { state.outcomes[sequence] = replaced(offset) }
                return
            }
            for (offset, sequence) in applied.enumerated() where sequences.contains(sequence) {
                if replaced(offset) { state.counts.updated += 1 } else { state.counts.created += 1 }
            }
        }
    }
}
