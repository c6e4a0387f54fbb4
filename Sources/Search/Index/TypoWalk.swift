/// Finds the terms within a word's typo budget by walking the sorted term dictionary as a trie
/// (children of a node are sub-ranges: `runEnds` near the root, binary search deeper), running a
/// bit-parallel Levenshtein automaton with transpositions (`TypoState`) along the way and pruning
/// a subtree as soon as the automaton is dead.
///
/// The first letter must be right (as in most engines), the first two for words long enough for
/// two typos: it bounds the walk to one subtree.
extension IndexCore {
    func collectTypoMatches(_ word: QueryWord, scratch: SearchScratch) {
        let lead = Typos.exactLead(budget: word.typoBudget)
        guard word.units.count > lead, word.units.count <= TypoState.maxWordUnits else { return }
        let subtree = prefixRange(Array(word.units[0..<lead]))
        guard !subtree.isEmpty else { return }
        var matches = scratch.matches
        scratch.matches = []
        // Match masks: bit i + 1 of masks[c] is set when w[i] == c; cleared again after the walk.
        let masks = scratch.typoMasks
        var canonical = [UInt8](repeating: 0, count: word.units.count)
        for (i, unit) in word.units.enumerated() {
            let mask = masks[Int(unit)]
            canonical[i] = mask == 0 ? UInt8(i) : UInt8(mask.trailingZeroBitCount - 1)
            masks[Int(unit)] |= 1 << UInt64(i + 1)
        }
        defer { for unit in word.units { masks[Int(unit)] = 0 } }
        canonical.withUnsafeBufferPointer { canonical in
        word.units.withUnsafeBufferPointer { w in
        runEnds[0].withUnsafeBufferPointer { ends1 in
        runEnds[1].withUnsafeBufferPointer { ends2 in
        runEnds[2].withUnsafeBufferPointer { ends3 in
        termKeys.withUnsafeBufferPointer { keys in
        termUnits.withUnsafeBufferPointer { units in
        termStarts.withUnsafeBufferPointer { starts in
            var walker = TypoWalker(
                units: units, starts: starts, keys: keys, runEnds: (ends1, ends2, ends3), word: w,
                masks: masks, canonical: canonical, budget: word.typoBudget, isPrefix: word.isPrefix, matches: matches)
            var state = TypoState(wordLength: w.count)
            for depth in 0..<lead { state = state.step(masks[Int(w[depth])], bound: word.typoBudget) }
            walker.visit(lo: subtree.lowerBound, hi: subtree.upperBound, depth: lead, state: state, covered: Int.max)
            matches = walker.matches
        }
        }
        }
        }
        }
        }
        }
        }
        scratch.matches = matches
    }
}

/// The active states of a nondeterministic Levenshtein automaton with transpositions (optimal
/// string alignment) for a word of `m` units and at most 2 typos, one bitset per typo count:
/// bit `i` of `r.e` set means the text read so far is within `e` typos of the word's first `i`
/// units. `t.e` marks states half-way through a transposition. Each text unit costs a handful of
/// word operations (Wu-Manber / Baeza-Yates-Navarro bit-parallel simulation), not a table row.
struct TypoState {
    static let maxWordUnits = 60

    var r0: UInt64, r1: UInt64, r2: UInt64
    var t0: UInt64 = 0, t1: UInt64 = 0
    /// Bits 0...m.
    let valid: UInt64
    let last: UInt64

    /// Nothing read yet: the first `e` word units may be deleted with `e` typos.
    init(wordLength m: Int) {
        r0 = 1
        r1 = 0b11
        r2 = 0b111
        valid = m >= 63 ? ~0 : (1 << UInt64(m + 1)) - 1
        last = 1 << UInt64(m)
        r1 &= valid
        r2 &= valid
    }

    /// The state after reading a unit whose match mask is `b`, keeping only states within `bound` typos.
    @inline(__always) func step(_ b: UInt64, bound: Int) -> TypoState {
        var next = self
        next.r0 = (r0 << 1) & b
        var r1 = ((self.r1 << 1) & b) | r0 | (r0 << 1) | ((t0 << 2) & (b << 1))
        r1 |= next.r0 << 1
        var r2 = ((self.r2 << 1) & b) | self.r1 | (self.r1 << 1) | ((t1 << 2) & (b << 1))
        r2 |= r1 << 1
        next.r1 = bound >= 1 ? r1 & valid : 0
        next.r2 = bound >= 2 ? r2 & valid : 0
        next.r0 &= valid
        next.t0 = bound >= 1 ? r0 & (b >> 2) : 0
        next.t1 = bound >= 2 ? self.r1 & (b >> 2) : 0
        return next
    }

    /// Typos between the text read and the whole word, if within 2.
    @inline(__always) var distance: Int? {
        r0 & last != 0 ? 0 : r1 & last != 0 ? 1 : r2 & last != 0 ? 2 : nil
    }

    /// The fewest typos of any live state (`Int.max` when the automaton is dead).
    @inline(__always) var minimum: Int {
        r0 != 0 ? 0 : r1 != 0 ? 1 : r2 != 0 ? 2 : .max
    }

    /// Live states at `level` typos that still need word units: their word positions `i` (only
    /// w[i], read next, keeps such a state alive without a further typo).
    @inline(__always) func live(level: Int) -> UInt64 {
        (level == 0 ? r0 : level == 1 ? r1 : r2) & (last - 1)
    }

    /// Positions `i` half-way through a transposition that would end at `level` typos (the text
    /// just read was w[i + 1]; only w[i] keeps such a state alive).
    @inline(__always) func transposing(level: Int) -> UInt64 {
        level == 1 ? t0 : level == 2 ? t1 : 0
    }
}

/// The state of one walk, on raw buffers (no exclusivity checks in the inner loop).
struct TypoWalker {
    let units: UnsafeBufferPointer<UInt16>
    let starts: UnsafeBufferPointer<UInt32>
    let keys: UnsafeBufferPointer<UInt64>
    let runEnds: (UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt32>)
    let word: UnsafeBufferPointer<UInt16>
    let masks: UnsafeMutablePointer<UInt64>
    /// `canonical[i]`: the first word position holding `word[i]` (equal units are looked up once).
    let canonical: UnsafeBufferPointer<UInt8>
    let budget: Int
    let isPrefix: Bool
    var matches: [TermMatch]

    @inline(__always) func length(_ term: Int) -> Int { Int(starts[term + 1] &- starts[term]) }
    @inline(__always) func unit(_ term: Int, _ position: Int) -> UInt16 {
        position < 4
            ? UInt16(truncatingIfNeeded: keys[term] >> UInt64(48 - 16 * position))
            : units[Int(starts[term]) &+ position]
    }

    /// Terms `lo..<hi` share their first `depth` units, read into `state`.
    /// `covered`: the fewest typos with which an ancestor's whole range was already recorded.
    mutating func visit(lo: Int, hi: Int, depth: Int, state: TypoState, covered: Int) {
        let terminal = length(lo) == depth
        var covered = covered
        if let distance = state.distance {
            if isPrefix, distance < covered {
                matches.append(TermMatch(terms: lo..<hi, typos: distance, exactTerm: terminal ? lo : -1))
                covered = distance
            } else if terminal, distance <= covered {
                // A whole term matching as well as the range above it: it ranks as an exact match.
                matches.append(TermMatch(terms: lo..<lo + 1, typos: distance, exactTerm: lo))
            }
        }
        // Deeper nodes matter only if they can stay within the budget and do at least as well as `covered`.
        let bound = min(budget, covered)
        let minimum = state.minimum
        if minimum > bound || depth >= word.count + budget { return }
        let first = terminal ? lo + 1 : lo
        guard first < hi else { return }
        if minimum < bound {
            // Any next unit may keep a state within bound: visit every child.
            var child = first
            while child < hi {
                let c = unit(child, depth)
                let end = childEnd(child, depth: depth, unit: c, hi: hi)
                descend(lo: child, hi: end, depth: depth, state: state.step(masks[Int(c)], bound: bound), bound: bound, covered: covered)
                child = end
            }
        } else {
            // Every live state is at the bound: only units that match the word there (or end a
            // transposition) keep one alive. Look those children up, each distinct unit once.
            var positions = state.live(level: bound) | state.transposing(level: bound)
            var distinct: UInt64 = 0
            while positions != 0 {
                distinct |= 1 << UInt64(canonical[positions.trailingZeroBitCount])
                positions &= positions - 1
            }
            while distinct != 0 {
                let c = word[distinct.trailingZeroBitCount]
                distinct &= distinct - 1
                let start = lowerBound(of: c, from: first, to: hi, depth: depth)
                guard start < hi, unit(start, depth) == c else { continue }
                let end = childEnd(start, depth: depth, unit: c, hi: hi)
                descend(lo: start, hi: end, depth: depth, state: state.step(masks[Int(c)], bound: bound), bound: bound, covered: covered)
            }
        }
    }

    @inline(__always) mutating func descend(lo: Int, hi: Int, depth: Int, state: TypoState, bound: Int, covered: Int) {
        if state.minimum <= bound {
            visit(lo: lo, hi: hi, depth: depth + 1, state: state, covered: covered)
        }
    }

    /// End of the run of children starting at `child` (all with unit `c` at `depth`).
    @inline(__always) func childEnd(_ child: Int, depth: Int, unit c: UInt16, hi: Int) -> Int {
        switch depth {
        case 1: return Int(runEnds.0[child])
        case 2: return Int(runEnds.1[child])
        case 3: return Int(runEnds.2[child])
        default: return upperBound(of: c, from: child + 1, to: hi, depth: depth)
        }
    }

    /// First term in `lo..<hi` whose unit at `depth` is at least `c` (all have a unit there).
    @inline(__always) func lowerBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int {
        var a = lo, b = hi
        while a < b {
            let mid = (a + b) >> 1
            if unit(mid, depth) < c { a = mid + 1 } else { b = mid }
        }
        return a
    }

    /// First term in `lo..<hi` whose unit at `depth` is above `c`.
    @inline(__always) func upperBound(of c: UInt16, from lo: Int, to hi: Int, depth: Int) -> Int {
        var a = lo, b = hi
        while a < b {
            let mid = (a + b) >> 1
            if unit(mid, depth) <= c { a = mid + 1 } else { b = mid }
        }
        return a
    }
}
