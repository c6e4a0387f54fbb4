extension CollectionIndex {
    /// Indexes `documents` for a later ``apply(_:through:prepared:)`` of their upserts, outside
    /// every lock (the caller's thread: not the pool Swift's tasks run on, the build takes long).
    /// For a repeated id the last one is indexed, as a write does.
    public func prepare(_ documents: [CollectionDocument]) -> PreparedBatch {
        var last = [String: Int](minimumCapacity: documents.count)
        documents.withUnsafeBufferPointer { documents in  // in place: not a copy of each document (three references)
            for offset in documents.indices { last[documents[offset].id] = offset }
        }
        let unique = last.count == documents.count
            ? documents : documents.enumerated().filter { last[$0.element.id] == $0.offset }.map(\.element)
        let segments = stride(from: 0, to: unique.count, by: SegmentText.maxDocuments).map { start in
            CollectionSegment(Array(unique[start..<min(start + SegmentText.maxDocuments, unique.count)]), layout: layout)
        }
        return PreparedBatch(index: ObjectIdentifier(self), documents: documents, segments: segments, uniqueCount: unique.count)
    }

    /// Whether `batch` can stand for the documents `pending` adds in this index's write.
    func accepts(_ batch: PreparedBatch, pending: [String: CollectionDocument]) -> Bool {
        batch.index == ObjectIdentifier(self) && batch.uniqueCount == pending.count
    }

    /// Whether `batch` stands for a write of `count` changes, all of them its upserts (the caller
    /// checked it ``PreparedBatch/covers(_:)`` them), each id once.
    func accepts(_ batch: PreparedBatch, distinct count: Int) -> Bool {
        batch.index == ObjectIdentifier(self) && batch.uniqueCount == count && batch.count == count
    }
}

extension CollectionIndex {
    /// Whether `batch`'s segments serve in this index now, as prepared (tests check the write took them).
    public func serves(_ batch: PreparedBatch) -> Bool {
        let serials = Set(batch.segments.map(\.serial))
        return !serials.isEmpty && snapshot.parts.contains { serials.contains($0.segment.serial) }
    }
}
