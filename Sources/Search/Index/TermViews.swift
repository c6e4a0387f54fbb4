/// The term dictionary in two more orders, for typos in the first two letters, where a walk of
/// the sorted dictionary would have to try every first unit:
///
/// - `tail`: by the units from the second on, so a wrong or missing first letter is one range
///   ("xondon" finds "london" under "ondon");
/// - `skipSecond`: by the first unit followed by the units from the third on, so a wrong or extra
///   second letter is one range ("lxndon" finds "london" under "l" + "ndon").
///
/// Each order is a sorted permutation of term numbers plus its inverse (for "is this term in that
/// range" checks on a document's terms), with each key's first four units packed and its length,
/// so that binary searches and the first levels of a walk read one array, not three.
struct TermViews: Sendable {
    enum View: UInt8, Sendable {
        case terms, tail, skipSecond
    }

    let tailOrder: [UInt32]
    let tailRank: [UInt32]
    let tailKeys: [UInt64]
    let tailLengths: [UInt8]
    let skipOrder: [UInt32]
    let skipRank: [UInt32]
    let skipKeys: [UInt64]
    let skipLengths: [UInt8]

    init(termUnits: [UInt16], termStarts: [UInt32], termKeys: [UInt64]) {
        let count = termStarts.count - 1
        func unit(_ term: Int, _ position: Int) -> UInt64 {
            let start = Int(termStarts[term])
            return start + position < Int(termStarts[term + 1]) ? UInt64(termUnits[start + position]) : 0
        }
        func sorted(skipping skipped: Int) -> (order: [UInt32], keys: [UInt64], lengths: [UInt8]) {
            // Key position k reads term position k, or k + 1 from `skipped` on.
            func position(_ k: Int) -> Int { k >= skipped ? k + 1 : k }
            var entries = [(key: UInt64, term: UInt32)]()
            entries.reserveCapacity(count)
            for term in 0..<count {
                var key: UInt64 = 0
                for k in 0..<4 { key = key << 16 | unit(term, position(k)) }
                entries.append((key, UInt32(term)))
            }
            entries.sort { a, b in
                Self.precedes(Int(a.term), a.key, Int(b.term), b.key, skipping: skipped, termUnits: termUnits, termStarts: termStarts)
            }
            let lengths = entries.map { entry -> UInt8 in
                let length = Int(termStarts[Int(entry.term) + 1] - termStarts[Int(entry.term)])
                return UInt8(length > skipped ? length - 1 : length)
            }
            return (entries.map(\.term), entries.map(\.key), lengths)
        }
        func inverse(_ order: [UInt32]) -> [UInt32] {
            var rank = [UInt32](repeating: 0, count: order.count)
            for (position, term) in order.enumerated() { rank[Int(term)] = UInt32(position) }
            return rank
        }
        (tailOrder, tailKeys, tailLengths) = sorted(skipping: 0)
        tailRank = inverse(tailOrder)
        (skipOrder, skipKeys, skipLengths) = sorted(skipping: 1)
        skipRank = inverse(skipOrder)
    }

    /// Whether term `x` (its key in this order `xKey`) comes before term `y` in the order that
    /// skips unit `skipped` (0: `tail`, 1: `skipSecond`); equal keys by term number.
    @inline(__always)
    static func precedes(
        _ x: Int, _ xKey: UInt64, _ y: Int, _ yKey: UInt64, skipping skipped: Int, termUnits: [UInt16], termStarts: [UInt32]
    ) -> Bool {
        if xKey != yKey { return xKey < yKey }
        let (xStart, yStart) = (Int(termStarts[x]), Int(termStarts[y]))
        let (xLength, yLength) = (Int(termStarts[x + 1]) - xStart, Int(termStarts[y + 1]) - yStart)
        var p = 5  // key positions 4 on read term positions 5 on (`skipped` < 4 is before them)
        while true {
            let (xEnd, yEnd) = (p >= xLength, p >= yLength)
            if xEnd || yEnd { return xEnd && !yEnd || (xEnd && yEnd && x < y) }
            let (u, v) = (termUnits[xStart + p], termUnits[yStart + p])
            if u != v { return u < v }
            p += 1
        }
    }

    /// The term at `position` of `view`'s order.
    @inline(__always) func term(_ position: Int, in view: View) -> Int {
        switch view {
        case .terms: return position
        case .tail: return Int(tailOrder[position])
        case .skipSecond: return Int(skipOrder[position])
        }
    }

    /// The position of `term` in `view`'s order.
    @inline(__always) func position(of term: Int, in view: View) -> Int {
        switch view {
        case .terms: return term
        case .tail: return Int(tailRank[term])
        case .skipSecond: return Int(skipRank[term])
        }
    }
}

/// Keys of the terms in one order, read through raw buffers: what the typo walk descends.
protocol TermKeys {
    /// No two keys are equal (the dictionary itself): at most one ends at a node of a walk.
    static var keysAreDistinct: Bool { get }
    /// Number of keys (terms).
    var count: Int { get }
    /// Number of units of the key at `position`.
    func length(_ position: Int) -> Int
    /// Unit `depth` of the key at `position` (`depth` < its length).
    func unit(_ position: Int, _ depth: Int) -> UInt16
    /// The first four units of the key at `position`, packed (16 bits each, the first highest; 0
    /// past its end).
    func packedKey(_ position: Int) -> UInt64
    /// The length of a term whose key has `keyLength` units.
    func termLength(keyLength: Int) -> Int
    /// End of the run of keys from `child` on (`lo..<hi` share `depth` units) with `unit` at `depth`.
    func childEnd(_ child: Int, depth: Int, unit: UInt16, hi: Int) -> Int
    /// First key in `lo..<hi` whose unit at `depth` is at least `c` (all have a unit there).
    func lowerBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int
    /// First key in `lo..<hi` whose unit at `depth` is above `c`.
    func upperBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int
}

extension TermKeys {
    /// First key in `lo..<hi` whose unit at `depth` is at least `c` (all have a unit there).
    @inline(__always) func lowerBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int {
        var a = lo, b = hi
        while a < b {
            let mid = (a + b) >> 1
            if unit(mid, depth) < c { a = mid + 1 } else { b = mid }
        }
        return a
    }

    /// First key in `lo..<hi` whose unit at `depth` is above `c`.
    @inline(__always) func upperBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int {
        var a = lo, b = hi
        while a < b {
            let mid = (a + b) >> 1
            if unit(mid, depth) <= c { a = mid + 1 } else { b = mid }
        }
        return a
    }

    /// `upperBound` for the run of the key at `lo - 1` (which has `c` at `depth`), likely short:
    /// deep in a walk a child holds a few keys. Probes 1, 2, 4... keys on, then a binary search
    /// within the last step: the same bound in a few reads instead of a search of all `hi - lo`.
    @inline(__always) func gallopingUpperBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int {
        var known = lo - 1, step = 1  // the last key known to have `c` at `depth`
        while true {
            let probe = known + step
            if probe >= hi || unit(probe, depth) > c { return upperBound(of: c, from: known + 1, to: min(probe, hi), depth: depth) }
            known = probe
            step <<= 1
        }
    }

    /// The keys in `lo..<hi` (which share `depth` units and all have more) whose units from
    /// `depth` on start with `suffix`: the node a walk reaches by reading `suffix` one unit a
    /// level, found with the walk's own searches but without visiting the nodes on the way.
    @inline(__always) func range(continuing suffix: UnsafeBufferPointer<UInt16>, depth: Int, lo: Int, hi: Int) -> Range<Int> {
        var (lo, hi) = (lo, hi)
        for k in suffix.indices {
            let d = depth + k, c = suffix[k]
            if k > 0 {  // keys that end at this node come first
                if Self.keysAreDistinct {
                    if length(lo) == d { lo += 1 }
                } else {
                    while lo < hi, length(lo) == d { lo += 1 }
                }
                if lo == hi { return lo..<lo }
            }
            let start = lowerBound(of: c, from: lo, to: hi, depth: d)
            guard start < hi, unit(start, d) == c else { return start..<start }
            hi = childEnd(start, depth: d, unit: c, hi: hi)
            lo = start
        }
        return lo..<hi
    }

    /// The keys in `lo..<hi` that start with `prefix` (two binary searches).
    func range(startingWith prefix: UnsafeBufferPointer<UInt16>, lo: Int, hi: Int) -> Range<Int> {
        // The prefix's first four units packed like the keys: one comparison decides most steps
        // (units are never 0, so a key shorter than the prefix compares below it).
        let packed = min(prefix.count, 4)
        var prefixKey: UInt64 = 0
        for i in 0..<4 { prefixKey = prefixKey << 16 | (i < packed ? UInt64(prefix[i]) : 0) }
        let mask: UInt64 = packed == 0 ? 0 : ~0 << UInt64(16 * (4 - packed))
        // -1, 0, 1: the key at `position` before, starting with, after `prefix`.
        func compare(_ position: Int) -> Int {
            let key = packedKey(position) & mask
            if key != prefixKey { return key < prefixKey ? -1 : 1 }
            guard prefix.count > 4 else { return 0 }
            let length = self.length(position)
            for depth in 4..<prefix.count {
                if depth == length { return -1 }
                let u = unit(position, depth), c = prefix[depth]
                if u != c { return u < c ? -1 : 1 }
            }
            return 0
        }
        var (a, b) = (lo, hi)
        while a < b {  // first key not before the prefix
            let mid = (a + b) >> 1
            if compare(mid) < 0 { a = mid + 1 } else { b = mid }
        }
        let start = a
        b = hi
        while a < b {  // first key after it
            let mid = (a + b) >> 1
            if compare(mid) <= 0 { a = mid + 1 } else { b = mid }
        }
        return start..<a
    }
}

/// The sorted dictionary itself (key = term).
struct SortedTermKeys: TermKeys {
    let units: UnsafeBufferPointer<UInt16>
    let starts: UnsafeBufferPointer<UInt32>
    let keys: UnsafeBufferPointer<UInt64>
    let runEnds: (UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt32>)

    static var keysAreDistinct: Bool { true }
    var count: Int { starts.count - 1 }
    @inline(__always) func length(_ term: Int) -> Int { Int(starts[term + 1] &- starts[term]) }
    @inline(__always) func unit(_ term: Int, _ position: Int) -> UInt16 {
        position < 4
            ? UInt16(truncatingIfNeeded: keys[term] >> UInt64(48 - 16 * position))
            : units[Int(starts[term]) &+ position]
    }
    @inline(__always) func packedKey(_ term: Int) -> UInt64 { keys[term] }
    @inline(__always) func termLength(keyLength: Int) -> Int { keyLength }
    @inline(__always) func childEnd(_ child: Int, depth: Int, unit c: UInt16, hi: Int) -> Int {
        switch depth {
        case 1: return Int(runEnds.0[child])
        case 2: return Int(runEnds.1[child])
        case 3: return Int(runEnds.2[child])
        default: return gallopingUpperBound(of: c, from: child + 1, to: hi, depth: depth)
        }
    }

    @inline(__always) func lowerBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int {
        firstTerm(withUnitAtLeast: UInt32(c), from: lo, to: hi, depth: depth)
    }

    @inline(__always) func upperBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int {
        firstTerm(withUnitAtLeast: UInt32(c) + 1, from: lo, to: hi, depth: depth)
    }

    // The binary searches of a walk read one array at one depth: which one, and the shift into
    // the packed key, are decided once, not at every probe (`unit` decides them each time). The
    // bound is 32 bits wide so that one search serves both bounds (above 0xFFFF: every term).
    @inline(__always) private func firstTerm(withUnitAtLeast limit: UInt32, from lo: Int, to hi: Int, depth: Int) -> Int {
        var a = lo, b = hi
        if depth < 4 {
            let shift = UInt64(48 - 16 * depth)
            while a < b {
                let mid = (a + b) >> 1
                if UInt32(UInt16(truncatingIfNeeded: keys[mid] >> shift)) < limit { a = mid + 1 } else { b = mid }
            }
        } else {
            while a < b {
                let mid = (a + b) >> 1
                if UInt32(units[Int(starts[mid]) &+ depth]) < limit { a = mid + 1 } else { b = mid }
            }
        }
        return a
    }
}

/// The dictionary in the order of `TermViews.tail` or `.skipSecond`: key position `k` reads term
/// position `k`, or `k + 1` from `skipped` on (0 for the tail, 1 for the skip of the second unit).
struct PermutedTermKeys: TermKeys {
    let terms: SortedTermKeys
    let order: UnsafeBufferPointer<UInt32>
    /// `TermViews.tailKeys` / `.skipKeys` and `...Lengths`.
    let keys: UnsafeBufferPointer<UInt64>
    let lengths: UnsafeBufferPointer<UInt8>
    let skipped: Int

    static var keysAreDistinct: Bool { false }
    var count: Int { order.count }
    @inline(__always) func length(_ position: Int) -> Int { Int(lengths[position]) }
    @inline(__always) func unit(_ position: Int, _ depth: Int) -> UInt16 {
        depth < 4
            ? UInt16(truncatingIfNeeded: keys[position] >> UInt64(48 - 16 * depth))
            : terms.unit(Int(order[position]), depth >= skipped ? depth + 1 : depth)
    }
    @inline(__always) func packedKey(_ position: Int) -> UInt64 { keys[position] }
    @inline(__always) func termLength(keyLength: Int) -> Int { keyLength + 1 }
    @inline(__always) func childEnd(_ child: Int, depth: Int, unit c: UInt16, hi: Int) -> Int {
        gallopingUpperBound(of: c, from: child + 1, to: hi, depth: depth)
    }
}
