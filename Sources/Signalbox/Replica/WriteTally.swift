import Base

/// Counts how many of the changes numbered `sequences` created a document (none had its id
/// before) and how many replaced one, as the ``ChangeApplier`` applies them: an import's batch
/// is counted by the look-up of each id its index write makes anyway (to mask the version it
/// replaces), not by a look-up of its own before. Applied in order, a document written twice
/// in one import is created once, then updated: the second write finds the first in the index,
/// or earlier in the same write.
final class WriteTally: Sendable {
    struct Counts: Sendable, Equatable {
        var created = 0
        var updated = 0

        var total: Int { created + updated }
    }

    let sequences: ClosedRange<Int64>
    private let counts = Locked(Counts())

    init(sequences: ClosedRange<Int64>) {
        self.sequences = sequences
    }

    /// What was counted so far: all of the changes once the applier has served the last of them.
    var counted: Counts { counts.withLock { $0 } }

    /// Counts the changes numbered `applied` (a run the applier applied, in order) that fall in
    /// ``sequences``; `replaced(offset)` tells whether the change at `offset` replaced a document.
    func count(_ applied: [Int64], replaced: (Int) -> Bool) {
        var added = Counts()
        for (offset, sequence) in applied.enumerated() where sequences.contains(sequence) {
            if replaced(offset) { added.updated += 1 } else { added.created += 1 }
        }
        guard added.total > 0 else { return }
        counts.withLock { counts in
            counts.created += added.created
            counts.updated += added.updated
        }
    }
}
