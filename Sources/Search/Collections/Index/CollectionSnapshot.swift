/// One immutable state of a `CollectionIndex`: its segments, each with the documents replaced or
/// deleted since it was built.
struct CollectionSnapshot: Sendable {
    struct Part: Sendable {
        let segment: CollectionSegment
        /// Documents of the segment no longer current.
        var deleted: DocumentSet
        var deletedCount: Int
        /// The segment's documents as they were indexed, kept for a recent segment (fewer than the
        /// index's `recentSegmentDocuments`): the next write folds them into its own segment without
        /// decoding their bodies again (that decoding cost 40% of a city's write to this index).
        let recentDocuments: [CollectionDocument]?

        init(_ segment: CollectionSegment, recentDocuments: [CollectionDocument]? = nil) {
            self.segment = segment
            deleted = DocumentSet(capacity: segment.count)
            deletedCount = 0
            self.recentDocuments = recentDocuments
        }

        /// A part as persisted: `deletedCount` must be `deleted.count`.
        init(_ segment: CollectionSegment, deleted: DocumentSet, deletedCount: Int) {
            self.segment = segment
            self.deleted = deleted
            self.deletedCount = deletedCount
            recentDocuments = nil
        }

        var liveCount: Int { segment.count - deletedCount }
    }

    var parts: [Part]
    var version: UInt64
    /// Bumped by every change of `parts` (a write's or a merge's): see `CollectionIndex.revision`.
    var revision: UInt64 = 0
    /// The store's sequence number of the latest change applied (0 when the caller gives none):
    /// what a persisted copy of this state covers.
    var sequence: Int64 = 0

    var count: Int { parts.reduce(0) { $0 + $1.liveCount } }

    /// Where the current document with this id is: part index and document number.
    /// Every part's first slot is read before any is probed: those reads do not wait for one
    /// another's cache misses (as in the batch's `locate(_:)`).
    func locate(_ id: String) -> (part: Int, document: UInt32)? {
        let hash = IdTable.hash(id)  // the same function in every segment's table
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: parts.count) { firstSlots in
            for index in parts.indices { firstSlots[index] = parts[index].segment.idTable.firstSlot(hash) }
            for index in parts.indices.reversed() {
                let part = parts[index]
                if let d = part.segment.idTable.number(of: id, hash: hash, firstSlot: firstSlots[index], in: part.segment.ids),
                    !part.deleted.contains(d)
                {
                    return (index, d)
                }
            }
            return nil
        }
    }

    /// ``locate(_:)`` of each of `ids`, a batch's: each id hashed once, and each part probed for
    /// all the ids not found yet, their first slots read ahead in a loop of their own. A part's
    /// table is megabytes, most of its reads miss the cache; a loop that branches on each slot
    /// waits for each miss in turn, this one lets them overlap.
    func locate(_ ids: [String]) -> [(part: Int, document: UInt32)?] {
        var found = [(part: Int, document: UInt32)?](repeating: nil, count: ids.count)
        guard !parts.isEmpty, !ids.isEmpty else { return found }
        let hashes = ids.map(IdTable.hash)
        var pending = Array(ids.indices)  // the ids not found yet
        var firstSlots = [UInt32](repeating: 0, count: ids.count)
        for index in parts.indices.reversed() {
            let part = parts[index]
            let table = part.segment.idTable, segmentIds = part.segment.ids
            for k in pending.indices { firstSlots[k] = table.firstSlot(hashes[pending[k]]) }
            var kept = 0
            for k in pending.indices {
                let i = pending[k]
                if let d = table.number(of: ids[i], hash: hashes[i], firstSlot: firstSlots[k], in: segmentIds), !part.deleted.contains(d) {
                    found[i] = (index, d)
                } else {
                    pending[kept] = i
                    kept += 1
                }
            }
            if kept == 0 { break }
            pending.removeLast(pending.count - kept)
        }
        return found
    }
}
