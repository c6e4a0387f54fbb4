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
    func locate(_ id: String) -> (part: Int, document: UInt32)? {
        let hash = IdTable.hash(id)  // the same function in every segment's table
        for (index, part) in parts.enumerated().reversed() {
            if let d = part.segment.number(of: id, hash: hash), !part.deleted.contains(d) { return (index, d) }
        }
        return nil
    }
}
