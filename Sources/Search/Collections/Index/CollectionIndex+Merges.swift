import Base

/// Background merges: a merge reads immutable segments, so it builds the merged one outside the
/// writer lock, on a thread of its own (not on the pool Swift's tasks run on, nor on
/// `DispatchQueue.global()`, which its own `concurrentPerform`s borrow), and takes the lock only
/// to swap it in: a big merge (four segments of 65,536 documents or more, seconds of work) no
/// longer holds writes. Writes go on meanwhile and mask documents in the segments being merged;
/// the swap carries those masks over to the merged segment (by id), so none comes back.
/// An index no longer served is retired (`retire()`): its merges stop.
extension CollectionIndex {
    /// What the writer lock guards besides the one-write-at-a-time rule.
    struct WriterState {
        /// Writes so far.
        var writes: UInt64 = 0
        /// The serials of the segments the running merge reads: a write leaves them in place
        /// (it neither folds them into its recent segment nor drops them when empty).
        var merging: Set<UInt64> = []
        /// Whether a merge thread runs (one at a time per index).
        var mergeThreadRuns = false
        /// Whether the index was retired: no merge starts, and the running one stops.
        var retired = false

        /// Claims the merge thread when a merge is `needed` and none runs; true if the caller starts it.
        mutating func claimMergeThread(needed: Bool) -> Bool {
            guard needed, !retired, !mergeThreadRuns else { return false }
            mergeThreadRuns = true
            return true
        }

        /// Releases the merge thread (it ends): the segments it read are merged no more.
        mutating func releaseMergeThread() {
            merging = []
            mergeThreadRuns = false
        }
    }

    /// The segments to merge next in `snapshot` (indices into its parts), leaving out those in
    /// `excluding`; nil when none. A mostly deleted segment first (rewritten alone), then the
    /// smallest size class with `mergeFanIn` segments or more.
    func mergePlan(_ snapshot: CollectionSnapshot, excluding: Set<UInt64>) -> [Int]? {
        let candidates = snapshot.parts.indices.filter { !excluding.contains(snapshot.parts[$0].segment.serial) }
        for i in candidates {
            let part = snapshot.parts[i]
            if part.liveCount >= configuration.recentSegmentDocuments,
                Double(part.deletedCount) > Double(part.segment.count) * configuration.maxDeletedFraction
            {
                return [i]
            }
        }
        var byLevel: [Int: [Int]] = [:]
        for i in candidates { byLevel[level(snapshot.parts[i].liveCount), default: []].append(i) }
        guard let (_, members) = byLevel.filter({ $0.key > 0 && $0.value.count >= configuration.mergeFanIn }).min(by: { $0.key < $1.key }),
            members.reduce(0, { $0 + snapshot.parts[$1].liveCount }) <= SegmentText.maxDocuments
        else { return nil }
        return members
    }

    /// Starts the merges the segments call for now, if any: after a restore (a save may hold
    /// segments whose merge had not been swapped in yet; a write would start it too, late).
    func scheduleMerges() {
        let start = writer.withLock { state in state.claimMergeThread(needed: mergePlan(published, excluding: state.merging) != nil) }
        if start { startMergeThread() }
    }

    /// Starts the merge thread (the caller claimed it under the writer lock).
    func startMergeThread() {
        mergesRunning.enter()
        OwnThread.start(name: Self.mergeThreadName) { [self] in
            // The heap is not trimmed here: `malloc_trim` holds each arena's lock while it walks it,
            // and during an import merges end every few batches (the service trims once writes
            // pause: `PersistedIndexes.saveQuiet`).
            while mergeOnce() {}
            mergesRunning.leave()
        }
    }

    /// The name of the thread merges run on.
    static let mergeThreadName = "index-merge"

    /// Whether the caller runs on a merge's own thread (tests check merges are off the pool).
    static var isMergeThread: Bool { OwnThread.currentName == mergeThreadName }

    /// Stops merging this index, which is no longer served (its collection's schema was replaced,
    /// or the collection deleted): a merge under way drops its segment once built, before the
    /// swap (the segments it read stay, with every write since), and none starts again. Writes still
    /// apply, and a search that took the index before still reads it.
    public func retire() {
        writer.withLock { $0.retired = true }
    }

    /// Whether ``retire()`` was called.
    public var isRetired: Bool { writer.withLock { $0.retired } }

    /// Blocks until no merge runs (tests, benchmarks, and a save that wants the merged state).
    public func waitForMerges() {
        mergesRunning.wait()
    }

    /// Runs the next merge the plan gives; false (and the thread released) when there is none,
    /// or when the index was retired.
    private func mergeOnce() -> Bool {
        let taken = writer.withLock { state -> [CollectionSnapshot.Part]? in
            let snapshot = published
            guard !state.retired, let members = mergePlan(snapshot, excluding: []) else {
                state.releaseMergeThread()
                return nil
            }
            let parts = members.map { snapshot.parts[$0] }
            state.merging = Set(parts.map(\.segment.serial))
            return parts
        }
        guard let taken else { return false }
        // Outside the lock: the parts as taken are immutable (their masks as of then). Built from
        // the parts' structures, not from their bodies decoded and indexed again.
        let merged = CollectionSegment(merging: taken, layout: layout, decoder: decoder)
        mergeBuilt?()
        return writer.withLock { state in
            // Retired meanwhile: the segments taken stay, with the writes masked in them since.
            guard !state.retired else {
                state.releaseMergeThread()
                return false
            }
            var next = published
            var deleted = DocumentSet(capacity: merged.count)
            var deletedCount = 0
            for old in taken {
                guard let now = next.parts.first(where: { $0.segment.serial == old.segment.serial }) else {
                    preconditionFailure("a segment being merged left the snapshot")
                }
                // Replaced or deleted since the merge took the part: masked in the merged one too.
                var since = now.deleted
                since.subtract(old.deleted)
                since.forEach { d in
                    guard let m = merged.number(of: old.segment.ids[Int(d)]), !deleted.contains(m) else { return }
                    deleted.insert(m)
                    deletedCount += 1
                }
            }
            next.parts.removeAll { state.merging.contains($0.segment.serial) }
            next.parts.append(CollectionSnapshot.Part(merged, deleted: deleted, deletedCount: deletedCount))
            next.revision += 1
            state.merging = []
            let swapped = next
            current.withLock { $0 = swapped }
            return true
        }
    }
}
