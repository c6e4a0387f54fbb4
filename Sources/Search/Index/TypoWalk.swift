/// Finds the terms within a word's typo budget by walking the sorted term dictionary as a trie
/// (children of a node are sub-ranges: `runEnds` near the root, binary search deeper), running a
/// bit-parallel Levenshtein automaton with transpositions (`TypoState`) along the way and pruning
/// a subtree as soon as the automaton is dead.
///
/// A walk starts under the word's first letter (its first two with two typos allowed): below the
/// root every first unit would keep the automaton alive. One typo in those letters (`Typos`) is
/// found by one lookup per kind of edit, each of the word as edited: in the dictionary itself (a
/// deleted first letter, swapped first letters), or in the orders of `TermViews` (a wrong or
/// missing first letter: by the units after the first; a wrong or extra second letter: by the
/// first unit and those after the second). Two typos of which some fall there are found by walks
/// that try every first unit (`anywhere`), the dearest. So a query of one word runs them only when
/// they may change its page (`IndexCore.search`): the lookups when the page is not full without
/// typos or a document with a typo may still enter it, the `anywhere` walks when nothing matches
/// with fewer typos; a query of several words, for a word found without typos in fewer documents
/// than the page holds.
extension IndexCore {
    /// Which walks `collectTypoMatches` runs.
    enum TypoWalkSet {
        /// The walk under the word's first letter (two with two typos) as typed.
        case clean
        /// The lookups of the word with one typo in those letters (the matches with one typo).
        case earlyOneTypo
        /// Two-typo words: both typos anywhere (both first letters wrong too), by walks that try
        /// every first unit (of the dictionary or of the tail view). They find every term within
        /// two typos, those of the other walks included: the last fallback, when nothing matches
        /// with fewer.
        case anywhere
    }

    /// Appends to `scratch.matches` the term ranges within `word`'s typo budget that `walks` find.
    func collectTypoMatches(_ word: QueryWord, walks: TypoWalkSet, scratch: SearchScratch) {
        let w = word.units
        guard w.count > 1, w.count <= TypoState.maxWordUnits else { return }
        var walk = TypoWalks(masks: scratch.typoMasks, isPrefix: word.isPrefix, matches: [])
        swap(&walk.matches, &scratch.matches)  // moved, not shared: appends need no copy
        termUnits.withUnsafeBufferPointer { units in
        termStarts.withUnsafeBufferPointer { starts in
        termKeys.withUnsafeBufferPointer { keys in
        runEnds[0].withUnsafeBufferPointer { ends1 in
        runEnds[1].withUnsafeBufferPointer { ends2 in
        runEnds[2].withUnsafeBufferPointer { ends3 in
        views.tailOrder.withUnsafeBufferPointer { tailOrder in
        views.tailKeys.withUnsafeBufferPointer { tailKeys in
        views.tailLengths.withUnsafeBufferPointer { tailLengths in
        views.skipOrder.withUnsafeBufferPointer { skipOrder in
        views.skipKeys.withUnsafeBufferPointer { skipKeys in
        views.skipLengths.withUnsafeBufferPointer { skipLengths in
        w.withUnsafeBufferPointer { w in
        withUnsafeTemporaryAllocation(of: UInt16.self, capacity: w.count + 3) { edited in
            let terms = SortedTermKeys(units: units, starts: starts, keys: keys, runEnds: (ends1, ends2, ends3))
            let tail = PermutedTermKeys(terms: terms, order: tailOrder, keys: tailKeys, lengths: tailLengths, skipped: 0)
            let skip = PermutedTermKeys(terms: terms, order: skipOrder, keys: skipKeys, lengths: skipLengths, skipped: 1)
            let n = w.count
            let rest = UnsafeBufferPointer(rebasing: w[1...])
            /// The word with its first `count` units replaced by `head`: an early edit undone.
            func undone(_ head: (UInt16, UInt16, UInt16), _ size: Int, dropping count: Int) -> UnsafeBufferPointer<UInt16> {
                (edited[0], edited[1], edited[2]) = head
                for i in count..<n { edited[size + i - count] = w[i] }
                return UnsafeBufferPointer(rebasing: edited[0..<(size + n - count)])
            }
            // No typo in the first letter (two letters with two typos): the budget in the rest.
            if walks == .clean {
                walk.run(terms, view: .terms, word: w, lead: Typos.exactLead(budget: word.typoBudget), budget: word.typoBudget)
            }
            if walks == .anywhere, word.typoBudget >= 2, n > 3 {
                // Every term t within two typos, by what becomes of t's first unit in an optimal
                // alignment (OSA read from the front): it is w0 (a walk under it); it replaces w0,
                // or is inserted before it (walks of the tail view, keyed by the units after it,
                // from its root: one level of every unit, not two); w0 is deleted and t0 is w1 (a
                // walk under it), replaces w1 or is w2 (lookups); t0 and w0 swap with w1.
                let w0 = w[0]
                let after = UnsafeBufferPointer(rebasing: w[2...])
                walk.run(terms, view: .terms, word: w, lead: 1, budget: 2)
                walk.run(tail, view: .tail, word: rest, lead: 0, budget: 1, extra: 1, excluding: (0, w0))
                walk.run(tail, view: .tail, word: w, lead: 0, budget: 1, extra: 1, excluding: (0, w0))
                walk.run(terms, view: .terms, word: rest, lead: 1, budget: 1, extra: 1)
                walk.run(tail, view: .tail, word: after, lead: n - 2, budget: 0, extra: 2, excluding: (0, w0))
                walk.run(terms, view: .terms, word: after, lead: n - 2, budget: 0, extra: 2)
                if w[1] != w0 { walk.run(terms, view: .terms, word: undone((w[1], w0, 0), 2, dropping: 2), lead: 2, budget: 1, extra: 1) }
            }
            guard walks == .earlyOneTypo else { return }
            let (w0, w1) = (w[0], w[1])
            if word.typoBudget == 1 {
                // The one typo in the first letter, the rest as typed.
                walk.run(tail, view: .tail, word: rest, lead: n - 1, budget: 0, extra: 1, excluding: (0, w0))
                walk.run(tail, view: .tail, word: w, lead: n, budget: 0, extra: 1, excluding: (0, w0))
                if w1 != w0 {
                    walk.run(terms, view: .terms, word: rest, lead: n - 1, budget: 0, extra: 1)
                    walk.run(terms, view: .terms, word: undone((w1, w0, 0), 2, dropping: 2), lead: n, budget: 0, extra: 1)
                }
            } else if word.typoBudget >= 2, n > 3 {
                // One typo in the first two letters, the rest as typed: the word as edited, a lookup.
                func early<Keys: TermKeys>(
                    _ keys: Keys, _ view: TermViews.View, _ edited: UnsafeBufferPointer<UInt16>,
                    excluding: (position: Int, unit: UInt16) = (-1, 0)
                ) {
                    walk.run(keys, view: view, word: edited, lead: edited.count, budget: 0, extra: 1, excluding: excluding)
                }
                let w2 = w[2]
                early(tail, .tail, rest, excluding: (0, w0))
                early(tail, .tail, w)
                early(skip, .skipSecond, w)
                if w1 != w0 {
                    early(terms, .terms, rest)
                    early(terms, .terms, undone((w1, w0, 0), 2, dropping: 2))
                }
                early(skip, .skipSecond, undone((w0, 0, 0), 1, dropping: 2), excluding: (1, w1))
                if w2 != w1 {
                    early(terms, .terms, undone((w0, 0, 0), 1, dropping: 2))
                    early(terms, .terms, undone((w0, w2, w1), 3, dropping: 3))
                }
            }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        }
        swap(&walk.matches, &scratch.matches)
    }
}

/// The walks of one query word, collecting their matches.
struct TypoWalks {
    let masks: UnsafeMutablePointer<UInt64>
    let isPrefix: Bool
    var matches: [TermMatch]

    /// Walks `keys` under `word`'s first `lead` units (which must be right), within `budget` typos
    /// in the rest; a match counts `extra` typos more (an edit already made to get `word`).
    mutating func run<Keys: TermKeys>(
        _ keys: Keys, view: TermViews.View, word: UnsafeBufferPointer<UInt16>, lead: Int, budget: Int, extra: Int = 0,
        excluding: (position: Int, unit: UInt16) = (-1, 0)
    ) {
        let count = word.count
        guard count >= lead, count <= TypoState.maxWordUnits else { return }
        let root = keys.range(startingWith: UnsafeBufferPointer(rebasing: word[0..<lead]), lo: 0, hi: keys.count)
        guard !root.isEmpty else { return }
        let first = matches.count
        if budget == 0 && lead == count {
            // The word as typed: its range, or its whole terms.
            var end = root.lowerBound
            while end < root.upperBound, keys.length(end) == count { end += 1 }
            if isPrefix {
                matches.append(TermMatch(terms: root, typos: extra, exactLength: keys.termLength(keyLength: count), view: view))
            } else if end > root.lowerBound {
                matches.append(TermMatch(terms: root.lowerBound..<end, typos: extra, exactLength: keys.termLength(keyLength: count), view: view))
            }
        } else {
            // Match masks: bit i + 1 of masks[c] is set when word[i] == c; cleared again after the walk.
            let masks = masks
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { canonical in
                for (i, unit) in word.enumerated() {
                    let mask = masks[Int(unit)]
                    canonical[i] = mask == 0 ? UInt8(i) : UInt8(mask.trailingZeroBitCount - 1)
                    masks[Int(unit)] |= 1 << UInt64(i + 1)
                }
                let walker = TypoWalker(
                    keys: keys, word: word, masks: masks, canonical: UnsafeBufferPointer(canonical), budget: budget, extra: extra,
                    view: view, isPrefix: isPrefix)
                var state = TypoState(wordLength: count)
                for depth in 0..<lead { state = state.step(masks[Int(word[depth])], bound: budget) }
                walker.visit(lo: root.lowerBound, hi: root.upperBound, depth: lead, state: state, covered: Int.max, into: &matches)
                for unit in word { masks[Int(unit)] = 0 }
            }
        }
        if excluding.position >= 0 {
            for i in first..<matches.count {
                matches[i].excludedPosition = excluding.position
                matches[i].excludedUnit = excluding.unit
            }
        }
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
private struct TypoWalker<Keys: TermKeys> {
    let keys: Keys
    let word: UnsafeBufferPointer<UInt16>
    let masks: UnsafeMutablePointer<UInt64>
    /// `canonical[i]`: the first word position holding `word[i]` (equal units are looked up once).
    let canonical: UnsafeBufferPointer<UInt8>
    let budget: Int
    let extra: Int
    let view: TermViews.View
    let isPrefix: Bool

    /// Keys `lo..<hi` share their first `depth` units, read into `state`.
    /// `covered`: the fewest typos with which an ancestor's whole range was already recorded.
    func visit(lo: Int, hi: Int, depth: Int, state: TypoState, covered: Int, into matches: inout [TermMatch]) {
        // Keys that end here sort first (one in the dictionary itself, maybe several in a view).
        var first = lo
        if Keys.keysAreDistinct {
            if keys.length(lo) == depth { first += 1 }
        } else {
            while first < hi, keys.length(first) == depth { first += 1 }
        }
        let terminal = first > lo
        var covered = covered
        if let distance = state.distance {
            let exactLength = terminal ? keys.termLength(keyLength: depth) : -1
            if isPrefix, distance < covered {
                matches.append(TermMatch(terms: lo..<hi, typos: distance + extra, exactLength: exactLength, view: view))
                covered = distance
            } else if terminal, distance <= covered {
                // Whole terms matching as well as the range above them: they rank as exact matches.
                matches.append(TermMatch(terms: lo..<first, typos: distance + extra, exactLength: exactLength, view: view))
            }
        }
        // Deeper nodes matter only if they can stay within the budget and do at least as well as `covered`.
        let bound = min(budget, covered)
        let minimum = state.minimum
        if minimum > bound || depth >= word.count + budget { return }
        guard first < hi else { return }
        if minimum < bound {
            // Any next unit may keep a state within bound: visit every child.
            var child = first
            while child < hi {
                let c = keys.unit(child, depth)
                let end = keys.childEnd(child, depth: depth, unit: c, hi: hi)
                descend(lo: child, hi: end, depth: depth, state: state.step(masks[Int(c)], bound: bound), bound: bound, covered: covered, into: &matches)
                child = end
            }
        } else {
            // Every live state is at the bound: only units that match the word there (or end a
            // transposition) keep one alive. Look those children up, each distinct unit once.
            let live = state.live(level: bound), transposing = state.transposing(level: bound)
            var positions = live | transposing
            var distinct: UInt64 = 0
            while positions != 0 {
                distinct |= 1 << UInt64(canonical[positions.trailingZeroBitCount])
                positions &= positions - 1
            }
            while distinct != 0 {
                let c = word[distinct.trailingZeroBitCount]
                distinct &= distinct - 1
                let start = keys.lowerBound(of: c, from: first, to: hi, depth: depth)
                guard start < hi, keys.unit(start, depth) == c else { continue }
                let end = keys.childEnd(start, depth: depth, unit: c, hi: hi)
                // One live position `i` reads `c` (no transposition ends with it): no further typo
                // is allowed, so the walk below can only follow the rest of `word[i...]` to its
                // end, one unit a level. One search finds that node; the state there is the same.
                let reading = live & masks[Int(c)] >> 1
                let i = reading.trailingZeroBitCount
                if i < word.count - 1, reading & (reading &- 1) == 0, transposing & masks[Int(c)] >> 1 == 0 {
                    var lo = start  // below the child: keys that end there come first
                    if Keys.keysAreDistinct {
                        if keys.length(lo) == depth + 1 { lo += 1 }
                    } else {
                        while lo < end, keys.length(lo) == depth + 1 { lo += 1 }
                    }
                    guard lo < end else { continue }
                    let rest = UnsafeBufferPointer(rebasing: word[(i + 1)...])
                    let node = keys.range(continuing: rest, depth: depth + 1, lo: lo, hi: end)
                    guard !node.isEmpty else { continue }
                    var state = state.step(masks[Int(c)], bound: bound)
                    for unit in rest { state = state.step(masks[Int(unit)], bound: bound) }
                    visit(lo: node.lowerBound, hi: node.upperBound, depth: depth + 1 + rest.count, state: state, covered: covered, into: &matches)
                    continue
                }
                descend(lo: start, hi: end, depth: depth, state: state.step(masks[Int(c)], bound: bound), bound: bound, covered: covered, into: &matches)
            }
        }
    }

    @inline(__always) func descend(
        lo: Int, hi: Int, depth: Int, state: TypoState, bound: Int, covered: Int, into matches: inout [TermMatch]
    ) {
        if state.minimum <= bound {
            visit(lo: lo, hi: hi, depth: depth + 1, state: state, covered: covered, into: &matches)
        }
    }
}
