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
        guard changes.count == documents.count else { return false }
        for (change, document) in zip(changes, documents) {
            guard case .upsert(let given) = change, given.id == document.id, given.body == document.body else { return false }
        }
        return true
    }
}
