/// A batch of upserts indexed ahead of its write (``CollectionIndex/prepare(_:)``): its segments
/// are built outside every lock, so that the write itself (``CollectionIndex/apply(_:through:prepared:)``)
/// only masks the documents' old versions and adds the segments, under the writer lock for
/// milliseconds, as a merge's swap does. An import's batch is prepared before it is committed:
/// the writes numbered after it then wait for that swap, not for its build (issue 25: single
/// `PUT`s waited 0.8-2.6 s behind each batch of a large import).
public struct PreparedBatch: Sendable {
    /// The index it was built for: any other (a new schema's, say) applies the batch as usual.
    let index: ObjectIdentifier
    /// The batch as given, in order (an id given twice is in it twice; its last version is indexed).
    let documents: [CollectionDocument]
    /// Each distinct id's last version, at most `SegmentText.maxDocuments` a segment.
    let segments: [CollectionSegment]
    /// Distinct ids.
    let uniqueCount: Int

    /// The batch's documents in order, as given.
    public var count: Int { documents.count }

    /// Whether `changes` are this batch's upserts, in its order (the same ids and bodies): what a
    /// write must be for these segments to stand for its documents.
    public func covers(_ changes: some Collection<CollectionChange>) -> Bool {
        covers(ArraySlice(changes))
    }

    /// The generic `covers(_:)` of a run of a write's changes, read in place: an import checks every
    /// batch's, and the generic walk cost more than the rest of the write's own work (issue 25).
    /// The write's documents are usually the very ones prepared: their bodies then compare by identity.
    public func covers(_ changes: ArraySlice<CollectionChange>) -> Bool {
        guard changes.count == documents.count else { return false }
        var d = 0
        for change in changes {
            guard case .upsert(let given) = change else { return false }
            let document = documents[d]
            guard given.id == document.id, given.body == document.body else { return false }
            d += 1
        }
        return true
    }
}
