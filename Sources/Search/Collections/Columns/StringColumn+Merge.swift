import Foundation

extension StringColumn {
    /// The column of the merged documents (``SegmentMerge``) from the parts' columns: what
    /// `init(_:field:)` builds from those documents, with no value folded, hashed or sorted
    /// again. Each part's values are sorted already, so their union is a k-way merge, and a
    /// part's value numbers map to the merged ones in the same order (a document's values stay
    /// ascending). A value's spelling is the one of the carried document holding it that comes
    /// first, as a build's: its part's kept spelling, or, when the document that spelling came
    /// from is left out, read from that carried document (``liveSpelling(_:field:isLive:document:)``:
    /// `document(p, d)` is part `p`'s document `d`, `field` the column's).
    convenience init(
        merging parts: [StringColumn], _ merge: SegmentMerge, field: Int, document: (_ part: Int, _ d: UInt32) -> CollectionDocument?
    ) {
        // 1. The values a carried document holds, per part, with the first such document's new number.
        var firsts: [[UInt32]] = []
        for (p, part) in parts.enumerated() {
            var first = [UInt32](repeating: SegmentMerge.dropped, count: part.count)
            let numbers = merge.numbers[p], documentValues = part.documentValues
            for d in numbers.indices where numbers[d] != SegmentMerge.dropped {
                for i in part.valueRange(of: d) where first[Int(documentValues[i])] == SegmentMerge.dropped {
                    first[Int(documentValues[i])] = numbers[d]
                }
            }
            firsts.append(first)
        }
        // 2. Their union in byte order: merged value numbers, and each part's map to them.
        var maps = parts.map { [UInt32](repeating: SegmentMerge.dropped, count: $0.count) }
        var values = FrontCodedStrings.Builder(), spellings = FrontCodedStrings.Builder()
        var spelled: [UInt32] = []
        var mergedCount = 0
        var cursors = parts.indices.map { Self.nextUsed(firsts[$0], from: 0) }
        // Each part's values and spellings read in order, each once (decoding value `v` on its own
        // reads its block from the head, into an array of its own: most of a merge's instructions).
        var heads = parts.map { FrontCodedStrings.Reader($0.values) }
        var spellingReaders = parts.map { FrontCodedStrings.Reader($0.spellings) }
        var spelledCursors = [Int](repeating: 0, count: parts.count)  // into each part's `spelled`
        for p in parts.indices { heads[p].advance(to: cursors[p]) }
        var holders: [Int] = []  // the parts whose next value is the smallest
        holders.reserveCapacity(parts.count)
        while true {
            holders.removeAll(keepingCapacity: true)
            for p in parts.indices where cursors[p] < parts[p].count {
                let order = holders.isEmpty ? -1 : Self.compare(heads[p].current, heads[holders[0]].current)
                if order < 0 { holders.removeAll(keepingCapacity: true) }
                if order <= 0 { holders.append(p) }
            }
            guard let smallest = holders.first else { break }
            // Spelled as in the part whose carried document holding it comes first.
            var spelledBy = smallest
            for p in holders where firsts[p][cursors[p]] < firsts[spelledBy][cursors[spelledBy]] { spelledBy = p }
            let merged = UInt32(mergedCount)
            mergedCount += 1
            values.append(heads[smallest].current)
            let part = parts[spelledBy], carried = merge.numbers[spelledBy], v = cursors[spelledBy]
            if carried[Int(part.valueDocuments[Int(part.valueStarts[v])])] == SegmentMerge.dropped {
                // The document its part's spelling came from is left out: the first carried one's, read back.
                let spelling = part.liveSpelling(
                    v, field: field, isLive: { carried[Int($0)] != SegmentMerge.dropped }, document: { document(spelledBy, $0) })
                if let spelling, !spelling.utf8.elementsEqual(heads[smallest].current) {
                    spelled.append(merged)
                    spellings.append(spelling.utf8)
                }
            } else {
                // The part's spelled values are ascending, and so are the values it is asked for.
                let spelledValues = part.spelled
                var s = spelledCursors[spelledBy]
                while s < spelledValues.count, spelledValues[s] < UInt32(v) { s += 1 }
                spelledCursors[spelledBy] = s
                if s < spelledValues.count, spelledValues[s] == UInt32(v) {
                    spellingReaders[spelledBy].advance(to: s)
                    spelled.append(merged)
                    spellings.append(spellingReaders[spelledBy].current)
                }
            }
            for p in holders {
                maps[p][cursors[p]] = merged
                cursors[p] = Self.nextUsed(firsts[p], from: cursors[p] + 1)
                heads[p].advance(to: cursors[p])
            }
        }
        // 3. Each merged document's values, mapped (still ascending), and each value's documents.
        var documentValues: [UInt32] = [], documentStarts: [UInt32] = [0]
        documentStarts.reserveCapacity(merge.count + 1)
        var valueStarts = [UInt32](repeating: 0, count: mergedCount + 1)
        var present = DocumentSet(capacity: merge.count)
        // Each part's arrays taken once (not a class reference and a slice retained per document).
        let partValues = parts.map(\.documentValues), partStarts = parts.map(\.documentStarts), partPresent = parts.map(\.present)
        for (n, source) in merge.sources.enumerated() {
            let p = source.part, d = Int(source.document)
            if partPresent[p].contains(source.document) { present.insert(UInt32(n)) }
            let range = partStarts[p].isEmpty
                ? d..<(partValues[p][d] == Self.noValue ? d : d + 1) : Int(partStarts[p][d])..<Int(partStarts[p][d + 1])
            for i in range {
                let merged = maps[p][Int(partValues[p][i])]
                documentValues.append(merged)
                valueStarts[Int(merged) + 1] += 1
            }
            documentStarts.append(UInt32(documentValues.count))
        }
        for v in 0..<mergedCount { valueStarts[v + 1] += valueStarts[v] }
        var fill = valueStarts
        var valueDocuments = [UInt32](repeating: 0, count: documentValues.count)
        for n in 0..<merge.count {
            for i in Int(documentStarts[n])..<Int(documentStarts[n + 1]) {
                let v = Int(documentValues[i])
                valueDocuments[Int(fill[v])] = UInt32(n)
                fill[v] += 1
            }
        }
        let singleValued = (0..<merge.count).allSatisfy { documentStarts[$0 + 1] - documentStarts[$0] <= 1 }
        self.init(
            values: values.build(), spelled: spelled, spellings: spellings.build(), valueDocuments: valueDocuments,
            valueStarts: valueStarts,
            documentValues: singleValued
                ? (0..<merge.count).map { documentStarts[$0 + 1] > documentStarts[$0] ? documentValues[Int(documentStarts[$0])] : Self.noValue }
                : documentValues,
            documentStarts: singleValued ? [] : documentStarts, present: present)
    }

    /// The first value at or after `start` that a carried document holds (`firsts` not dropped).
    private static func nextUsed(_ firsts: [UInt32], from start: Int) -> Int {
        var v = start
        while v < firsts.count, firsts[v] == SegmentMerge.dropped { v += 1 }
        return v
    }

    private static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in UTF8Order.compare(x, y) } }
    }
}
