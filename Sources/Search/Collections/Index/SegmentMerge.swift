/// The numbering of a merge: the live documents of the merged parts in the order the merged
/// segment numbers them (rank, then id). Each part is in that order already, so this is a k-way
/// merge of the parts' live documents: no sort.
struct SegmentMerge {
    /// A merged document's part and its number there.
    struct Source {
        let part: Int
        let document: UInt32
    }

    /// By new number.
    let sources: [Source]
    /// Per part, by old number: the new number, or ``dropped`` for a document not carried over.
    let numbers: [[UInt32]]

    static let dropped = UInt32.max

    var count: Int { sources.count }

    init(_ parts: [CollectionSnapshot.Part], layout: SchemaLayout) {
        let segments = parts.map(\.segment)
        var numbers = segments.map { [UInt32](repeating: Self.dropped, count: $0.count) }
        var sources: [Source] = []
        sources.reserveCapacity(parts.reduce(0) { $0 + $1.liveCount })
        var cursors = [Int](repeating: 0, count: parts.count)
        func skipDeleted(_ p: Int) {
            while cursors[p] < segments[p].count, parts[p].deleted.contains(UInt32(cursors[p])) { cursors[p] += 1 }
        }
        for p in parts.indices { skipDeleted(p) }
        let ranked = layout.rankField != nil
        // Whether part a's next document comes before part b's (`CollectionSegment.init`'s order).
        func precedes(_ a: Int, _ b: Int) -> Bool {
            let x = segments[a], y = segments[b], i = cursors[a], j = cursors[b]
            if ranked {
                let order = CollectionSegment.rankOrder(x.rank(i), y.rank(j))
                if order != 0 { return order < 0 }
            }
            return CollectionSegment.idPrecedes(x.ids[i], y.ids[j])
        }
        while true {
            var best = -1
            for p in parts.indices where cursors[p] < segments[p].count {
                if best < 0 || precedes(p, best) { best = p }
            }
            guard best >= 0 else { break }
            numbers[best][cursors[best]] = UInt32(sources.count)
            sources.append(Source(part: best, document: UInt32(cursors[best])))
            cursors[best] += 1
            skipDeleted(best)
        }
        self.sources = sources
        self.numbers = numbers
    }
}

extension CollectionSegment {
    /// The live documents of `parts` as one segment, as `init(_:layout:)` builds it from those
    /// documents, but from the parts' own structures: no text is tokenized again and no body is
    /// decoded again (a merge's rebuild from the bodies cost more than the first build of its
    /// documents, and an import's documents go through about log₄(n / batch) merges), but the
    /// few a string value's spelling needs when the document it came from is left out: `decoder`
    /// (the index's, for `layout`'s schema) reads them.
    convenience init(merging parts: [CollectionSnapshot.Part], layout: SchemaLayout, decoder: CollectionDocumentDecoder? = nil) {
        let merge = SegmentMerge(parts, layout: layout)
        let decoder = decoder ?? CollectionDocumentDecoder(schema: layout.schema)
        precondition(merge.count <= SegmentText.maxDocuments, "a segment numbers at most 2^27 documents")
        let segments = parts.map(\.segment)
        let ids = merge.sources.map { segments[$0.part].ids[Int($0.document)] }
        let ranks = layout.rankField == nil ? [] : merge.sources.map { segments[$0.part].rank(Int($0.document)) }
        self.init(
            serial: UInt64.random(in: 1...UInt64.max), ids: ids, idTable: IdTable(ids),
            bodies: SegmentBodies(merging: segments.map(\.bodies), merge), ranks: ranks,
            text: SegmentText(merging: segments.map(\.text), merge),
            columns: FieldColumn.merging(segments.map(\.columns), merge, layout: layout) { p, d in
                segments[p].document(Int(d), decoder: decoder)
            })
    }
}
