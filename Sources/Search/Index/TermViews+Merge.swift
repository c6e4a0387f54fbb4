extension TermViews {
    /// The views of a merged dictionary (`IndexCore.merging`), from the views of the two cores
    /// merged: `older` and `newer` map each of their terms to its number in the merged dictionary
    /// (`termUnits`, `termStarts`), or `.max` for a term left out. Both maps keep their terms'
    /// order, so each view's order, filtered and renumbered, is still sorted; the two are merged,
    /// a term of both once. The same as sorting the merged dictionary again, without the sort.
    init(
        merging older: TermViews, _ olderMap: [UInt32], _ newer: TermViews, _ newerMap: [UInt32],
        termUnits: [UInt16], termStarts: [UInt32]
    ) {
        let count = termStarts.count - 1
        func merged(
            _ a: (order: [UInt32], keys: [UInt64], lengths: [UInt8]), _ b: (order: [UInt32], keys: [UInt64], lengths: [UInt8]),
            skipping skipped: Int
        ) -> (order: [UInt32], keys: [UInt64], lengths: [UInt8], rank: [UInt32]) {
            var order = [UInt32](), keys = [UInt64](), lengths = [UInt8]()
            order.reserveCapacity(count)
            keys.reserveCapacity(count)
            lengths.reserveCapacity(count)
            var i = 0, j = 0
            while true {
                while i < a.order.count, olderMap[Int(a.order[i])] == .max { i += 1 }
                while j < b.order.count, newerMap[Int(b.order[j])] == .max { j += 1 }
                let x = i < a.order.count ? olderMap[Int(a.order[i])] : .max
                let y = j < b.order.count ? newerMap[Int(b.order[j])] : .max
                if x == .max, y == .max { break }
                let takeOlder = y == .max
                    || (x != .max && (x == y
                        || Self.precedes(Int(x), a.keys[i], Int(y), b.keys[j], skipping: skipped, termUnits: termUnits, termStarts: termStarts)))
                if takeOlder {
                    order.append(x)
                    keys.append(a.keys[i])
                    lengths.append(a.lengths[i])
                    if x == y { j += 1 }
                    i += 1
                } else {
                    order.append(y)
                    keys.append(b.keys[j])
                    lengths.append(b.lengths[j])
                    j += 1
                }
            }
            var rank = [UInt32](repeating: 0, count: order.count)
            for (position, term) in order.enumerated() { rank[Int(term)] = UInt32(position) }
            return (order, keys, lengths, rank)
        }
        (tailOrder, tailKeys, tailLengths, tailRank) = merged(
            (older.tailOrder, older.tailKeys, older.tailLengths), (newer.tailOrder, newer.tailKeys, newer.tailLengths), skipping: 0)
        (skipOrder, skipKeys, skipLengths, skipRank) = merged(
            (older.skipOrder, older.skipKeys, older.skipLengths), (newer.skipOrder, newer.skipKeys, newer.skipLengths), skipping: 1)
    }
}
