import Foundation

extension StringColumn {
    /// The column of the merged documents (``SegmentMerge``) from the parts' columns: what
    /// `init(_:field:)` builds from those documents, with no value folded, hashed or sorted
    /// again. Each part's values are sorted already, so their union is a k-way merge, and a
    /// part's value numbers map to the merged ones in the same order (a document's values stay
    /// ascending). A value's spelling is the first spelling of the part whose carried document
    /// holding it comes first (the same as a build's unless one part spells it several ways).
    convenience init(merging parts: [StringColumn], _ merge: SegmentMerge) {
        // 1. The values a carried document holds, per part, with the first such document's new number.
        var firsts: [[UInt32]] = []
        for (p, part) in parts.enumerated() {
            var first = [UInt32](repeating: SegmentMerge.dropped, count: part.count)
            for (d, n) in merge.numbers[p].enumerated() where n != SegmentMerge.dropped {
                for v in part.values(of: UInt32(d)) where first[Int(v)] == SegmentMerge.dropped { first[Int(v)] = n }
            }
            firsts.append(first)
        }
        // 2. Their union in byte order: merged value numbers, and each part's map to them.
        var maps = parts.map { [UInt32](repeating: SegmentMerge.dropped, count: $0.count) }
        var valueBytes: [UInt8] = [], valueEnds: [UInt32] = []
        var spellingBytes: [UInt8] = [], spellingStarts: [UInt32] = [], spellingEnds: [UInt32] = []
        var cursors = [Int](repeating: 0, count: parts.count)
        func skipUnused(_ p: Int) {
            while cursors[p] < parts[p].count, firsts[p][cursors[p]] == SegmentMerge.dropped { cursors[p] += 1 }
        }
        func compare(_ a: Int, _ b: Int) -> Int {
            parts[a].valueBytes.withUnsafeBufferPointer { x in
                parts[b].valueBytes.withUnsafeBufferPointer { y in
                    UTF8Order.compare(parts[a].bytes(in: x, cursors[a]), parts[b].bytes(in: y, cursors[b]))
                }
            }
        }
        for p in parts.indices { skipUnused(p) }
        while true {
            // The smallest next value, and of the parts holding it the one whose document comes first.
            var smallest = -1, spelledBy = -1
            for p in parts.indices where cursors[p] < parts[p].count {
                let order = smallest < 0 ? -1 : compare(p, smallest)
                if order < 0 {
                    smallest = p
                    spelledBy = p
                } else if order == 0, firsts[p][cursors[p]] < firsts[spelledBy][cursors[spelledBy]] {
                    spelledBy = p
                }
            }
            guard smallest >= 0 else { break }
            let merged = UInt32(valueEnds.count)
            valueBytes += parts[smallest].bytes(cursors[smallest])
            valueEnds.append(UInt32(valueBytes.count))
            let spelling = parts[spelledBy].spelling(cursors[spelledBy])
            if spelling.utf8.elementsEqual(parts[smallest].bytes(cursors[smallest])) {
                spellingStarts.append(.max)
            } else {
                spellingStarts.append(UInt32(spellingBytes.count))
                spellingBytes += spelling.utf8
            }
            spellingEnds.append(UInt32(spellingBytes.count))
            // Every part holding the value maps it here (compared before any cursor moves).
            let holders = parts.indices.filter { cursors[$0] < parts[$0].count && ($0 == smallest || compare($0, smallest) == 0) }
            for p in holders {
                maps[p][cursors[p]] = merged
                cursors[p] += 1
                skipUnused(p)
            }
        }
        if spellingBytes.isEmpty {
            spellingStarts = []
            spellingEnds = []
        }
        // 3. Each merged document's values, mapped (still ascending), and each value's documents.
        var documentValues: [UInt32] = [], documentStarts: [UInt32] = [0]
        documentStarts.reserveCapacity(merge.count + 1)
        var valueStarts = [UInt32](repeating: 0, count: valueEnds.count + 1)
        var present = DocumentSet(capacity: merge.count)
        for (n, source) in merge.sources.enumerated() {
            let part = parts[source.part], map = maps[source.part]
            if part.present.contains(source.document) { present.insert(UInt32(n)) }
            for v in part.values(of: source.document) {
                let merged = map[Int(v)]
                documentValues.append(merged)
                valueStarts[Int(merged) + 1] += 1
            }
            documentStarts.append(UInt32(documentValues.count))
        }
        for v in 0..<valueEnds.count { valueStarts[v + 1] += valueStarts[v] }
        var fill = valueStarts
        var valueDocuments = [UInt32](repeating: 0, count: documentValues.count)
        for n in 0..<merge.count {
            for i in Int(documentStarts[n])..<Int(documentStarts[n + 1]) {
                let v = Int(documentValues[i])
                valueDocuments[Int(fill[v])] = UInt32(n)
                fill[v] += 1
            }
        }
        self.init(
            valueBytes: valueBytes, valueEnds: valueEnds, spellingBytes: spellingBytes, spellingStarts: spellingStarts,
            spellingEnds: spellingEnds, valueDocuments: valueDocuments, valueStarts: valueStarts, documentValues: documentValues,
            documentStarts: documentStarts, present: present)
    }

    /// Folded value `v` within `arena` (this column's `valueBytes`).
    @inline(__always) fileprivate func bytes(in arena: UnsafeBufferPointer<UInt8>, _ v: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: arena[(v == 0 ? 0 : Int(valueEnds[v - 1]))..<Int(valueEnds[v])])
    }
}
