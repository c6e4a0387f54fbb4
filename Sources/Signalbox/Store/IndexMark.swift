import Foundation

/// What a saved collection index records of the history it was built from, so that a start can
/// tell that history from the store's.
///
/// A store's epoch does not change when a PostgreSQL standby is promoted: with asynchronous
/// replication the new primary may lack the last changes the old one committed and give their
/// sequence numbers to other changes. An index saved at sequence N before the failover would then
/// hold changes the store no longer has, and a start would skip the store's own changes up to N
/// as already covered. The mark names the history: the server process that answered while the
/// replica applied it (``PostgresStore/serverIdentity``: address, port, start time), and the
/// digests of the newest changes the index holds, N's among them. A start takes the index only
/// when the same server process still answers (no promotion or restart in between: one history),
/// or when the store's log holds N with the same change (a standby replays its primary's WAL in
/// order, so holding N as it was made means holding every change before it too) and no other
/// marked change differs. Anything else (no mark, N pruned from the log, a different change) is
/// rebuilt from the store.
struct IndexMark: Sendable, Codable, Equatable {
    /// One change the index holds: its sequence number and ``StoredChange/digest``.
    struct Change: Sendable, Codable, Equatable {
        var sequence: Int64
        var digest: UInt64
    }

    /// Where a replica's history stood before it took an index's snapshot
    /// (``IndexMarking/markPosition()``): a mark is made only if no rewind came in between.
    struct Position: Sendable, Equatable {
        /// The server whose history the replica holds, once checked (nil: not known).
        var server: String?
        /// How many times the replica went back after a failover (``ChangeApplier/rewind(to:corrections:history:)``).
        var rewinds: Int
        /// Every change through this number is in every collection's index: an index saved now
        /// is current at it at least (so its mark names a change the replica still remembers,
        /// not the collection's last write, which may be long gone from its memory).
        var served: Int64 = 0
    }

    /// How many of the newest changes a mark keeps: the one at its sequence decides, the others
    /// guard against a new change equal to a lost one by chance.
    static let keptChanges = 32

    /// The sequence number the index is current at.
    var sequence: Int64
    /// The server process whose history it is; nil when the replica had not checked one.
    var server: String?
    /// The newest changes the index holds, oldest first, ending at ``sequence``.
    var changes: [Change]

    /// The log's numbers a check of this mark reads (nil: nothing to read).
    var loggedRange: ClosedRange<Int64>? {
        guard let first = changes.first, let last = changes.last else { return nil }
        return first.sequence...last.sequence
    }

    /// Whether a store answered by `server`, whose log holds `log` (at least this mark's
    /// ``loggedRange``, where it still keeps it), holds the history this mark names.
    func isHistory(ofServer server: String?, log: [StoredChange]) -> Bool {
        if sequence == 0 { return true }  // an index of no change at all
        if let mine = self.server, mine == server { return true }
        guard let newest = changes.last, newest.sequence == sequence else { return false }
        let stored = Dictionary(log.map { ($0.sequence, $0.digest) }, uniquingKeysWith: { first, _ in first })
        guard stored[sequence] == newest.digest else { return false }
        // The log is the newest changes: a marked one it no longer keeps is older than N, checked through N.
        return changes.allSatisfy { change in stored[change.sequence].map { $0 == change.digest } ?? true }
    }
}

/// What makes a saved index's ``IndexMark``: the replica's record of the history it applied.
protocol IndexMarking: Sendable {
    /// Read before an index's snapshot is taken for saving.
    func markPosition() -> IndexMark.Position
    /// The mark of an index saved at `sequence`, its snapshot taken after `position`; nil when
    /// the replica went back since (the snapshot may be of either history) or no longer knows
    /// the change at `sequence`.
    func mark(at sequence: Int64, since position: IndexMark.Position) -> IndexMark?
}
