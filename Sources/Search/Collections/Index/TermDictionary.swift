/// The sorted terms of one collection segment, laid out as `IndexCore`'s (folded UTF-16 units,
/// the first four packed per term, child-range ends near the root) so that the same typo walk
/// (`TypoWalks`, `TypoState`) runs over it. `IndexCore` keeps its own copy of these few
/// functions: moving it onto this type would touch the tuned `/search` path for no gain.
struct TermDictionary: Sendable {
    let termUnits: [UInt16]
    let termStarts: [UInt32]
    let termKeys: [UInt64]
    let runEnds: [[UInt32]]

    var termCount: Int { termStarts.count - 1 }

    /// Sorts the interned terms; `renumber[id]` is the sorted position of interned term `id`.
    static func sorting(_ interner: TermInterner) -> (dictionary: TermDictionary, renumber: [UInt32]) {
        let termCount = interner.count
        var sortKeys = [(key: UInt64, id: UInt32)]()
        sortKeys.reserveCapacity(termCount)
        interner.arena.withUnsafeBufferPointer { arena in
            for id in 0..<termCount {
                let start = Int(interner.starts[id]), end = Int(interner.starts[id + 1])
                var key: UInt64 = 0
                for i in 0..<4 { key = key << 16 | (start + i < end ? UInt64(arena[start + i]) : 0) }
                sortKeys.append((key, UInt32(id)))
            }
            sortKeys.sort { a, b in
                if a.key != b.key { return a.key < b.key }
                let x = arena[Int(interner.starts[Int(a.id)])..<Int(interner.starts[Int(a.id) + 1])]
                let y = arena[Int(interner.starts[Int(b.id)])..<Int(interner.starts[Int(b.id) + 1])]
                return x.lexicographicallyPrecedes(y)
            }
        }
        var renumber = [UInt32](repeating: 0, count: termCount)
        var termUnits: [UInt16] = []
        termUnits.reserveCapacity(interner.arena.count)
        var termStarts: [UInt32] = [0]
        termStarts.reserveCapacity(termCount + 1)
        for (sorted, entry) in sortKeys.enumerated() {
            renumber[Int(entry.id)] = UInt32(sorted)
            termUnits.append(contentsOf: interner.units(of: Int(entry.id)))
            termStarts.append(UInt32(termUnits.count))
        }
        let runEnds = (1...3).map { depth in
            let shift = UInt64(16 * (3 - depth))
            var ends = [UInt32](repeating: 0, count: termCount)
            var t = termCount - 1
            while t >= 0 {
                let same = t + 1 < termCount && sortKeys[t + 1].key >> shift == sortKeys[t].key >> shift
                ends[t] = same ? ends[t + 1] : UInt32(t + 1)
                t -= 1
            }
            return ends
        }
        let dictionary = TermDictionary(termUnits: termUnits, termStarts: termStarts, termKeys: sortKeys.map(\.key), runEnds: runEnds)
        return (dictionary, renumber)
    }

    /// Leading units a typo walk keeps as typed: the first letter.
    static let typoLead = 1

    @inline(__always) func termLength(_ term: Int) -> Int {
        Int(termStarts[term + 1] - termStarts[term])
    }

    /// Compares term `term` with `word` (`wordKey`: its first four units packed like `termKeys`),
    /// looking at most at `word.count` units when `prefixOnly`.
    @inline(__always)
    private func compare(_ term: Int, _ word: [UInt16], wordKey: UInt64, prefixOnly: Bool) -> Int {
        let packed = min(word.count, 4)
        let mask: UInt64 = packed == 0 ? 0 : ~0 << UInt64(16 * (4 - packed))
        let key = termKeys[term] & mask
        if key != wordKey & mask { return key < wordKey & mask ? -1 : 1 }
        let start = Int(termStarts[term]), length = termLength(term)
        let n = min(length, word.count)
        var i = packed
        while i < n {
            let a = termUnits[start + i], b = word[i]
            if a != b { return a < b ? -1 : 1 }
            i += 1
        }
        if length == word.count || (prefixOnly && length > word.count) { return 0 }
        return length < word.count ? -1 : 1
    }

    /// The range of terms that start with `word`.
    func prefixRange(_ word: [UInt16]) -> Range<Int> {
        var wordKey: UInt64 = 0
        for i in 0..<4 { wordKey = wordKey << 16 | (i < word.count ? UInt64(word[i]) : 0) }
        var lo = 0, hi = termCount
        while lo < hi {
            let mid = (lo + hi) / 2
            if compare(mid, word, wordKey: wordKey, prefixOnly: false) < 0 { lo = mid + 1 } else { hi = mid }
        }
        let start = lo
        hi = termCount
        while lo < hi {
            let mid = (lo + hi) / 2
            if compare(mid, word, wordKey: wordKey, prefixOnly: true) == 0 { lo = mid + 1 } else { hi = mid }
        }
        return start..<lo
    }

    /// The term ranges matching `word` (as `IndexCore`'s search collects them): an exact term, a
    /// prefix range, or for words with a typo budget the walk's ranges by typo count.
    func matches(_ word: QueryWord, scratch: SearchScratch) -> [TermMatch] {
        var matches: [TermMatch] = []
        if word.typoBudget > 0 {
            collectTypoMatches(word, into: &matches, masks: scratch.typoMasks)
        } else if word.isPrefix {
            let range = prefixRange(word.units)
            if !range.isEmpty {
                matches.append(TermMatch(terms: range, typos: 0, exactLength: word.units.count))
            }
        } else {
            let range = prefixRange(word.units)
            if let first = range.first, termLength(first) == word.units.count {
                matches.append(TermMatch(terms: first..<first + 1, typos: 0, exactLength: word.units.count))
            }
        }
        return matches
    }

    /// The walk of `IndexCore.collectTypoMatches` over this dictionary under the word's first
    /// letter as typed, with one or two typos anywhere after it (the second letter included: the
    /// cities keep two letters for two typos and find the others by their early-typo views, which
    /// collections do not build; one walk under one letter costs a collection query little).
    private func collectTypoMatches(_ word: QueryWord, into matches: inout [TermMatch], masks: UnsafeMutablePointer<UInt64>) {
        let lead = Self.typoLead
        guard word.units.count > lead, word.units.count <= TypoState.maxWordUnits else { return }
        var walk = TypoWalks(masks: masks, isPrefix: word.isPrefix, matches: [])
        swap(&walk.matches, &matches)
        word.units.withUnsafeBufferPointer { w in
        runEnds[0].withUnsafeBufferPointer { ends1 in
        runEnds[1].withUnsafeBufferPointer { ends2 in
        runEnds[2].withUnsafeBufferPointer { ends3 in
        termKeys.withUnsafeBufferPointer { keys in
        termUnits.withUnsafeBufferPointer { units in
        termStarts.withUnsafeBufferPointer { starts in
            let terms = SortedTermKeys(units: units, starts: starts, keys: keys, runEnds: (ends1, ends2, ends3))
            walk.run(terms, view: .terms, word: w, lead: lead, budget: word.typoBudget)
        }
        }
        }
        }
        }
        }
        }
        swap(&walk.matches, &matches)
    }
}
