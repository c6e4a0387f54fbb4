/// Optimal string alignment (restricted Damerau–Levenshtein) distances on UTF-16 units:
/// insertions, deletions, substitutions and transpositions of neighbours each count one.
///
/// Typos may fall anywhere, the first letters included, but with two typos allowed at most one
/// may be *early*: an edit that touches one of the word's first two letters (substituting,
/// deleting or swapping it, or inserting a letter before the second). The index walk has the same
/// rule (`IndexCore.collectTypoMatches`): two free units at the start would make it try every
/// pair of first units.
enum Typos {
    /// Leading units the index walk without early typos keeps fixed for a typo budget.
    static func exactLead(budget: Int) -> Int { budget >= 2 ? 2 : 1 }

    /// The distance between `a` (the word) and `b` (a token) if it is at most `limit`.
    static func distance(_ a: [UInt16], _ b: ArraySlice<UInt16>, limit: Int) -> Int? {
        if abs(a.count - b.count) > limit { return nil }
        if limit == 0 { return a.elementsEqual(b) ? 0 : nil }
        if !startsClose(a, b) { return nil }
        var result = Int.max
        forEachRow(word: a, token: b) { length, distance in
            if length == b.count { result = distance }
        }
        return result <= limit ? result : nil
    }

    /// The smallest distance between `word` and a prefix of `token`, if at most `limit`, with the
    /// length of the longest token prefix reaching it.
    static func prefixDistance(word: [UInt16], token: ArraySlice<UInt16>, limit: Int) -> (typos: Int, length: Int)? {
        if limit == 0 {
            return token.starts(with: word) ? (0, word.count) : nil
        }
        if word.isEmpty || !startsClose(word, token) { return nil }
        var best: (typos: Int, length: Int)?
        // Token prefixes longer than the word plus the budget are beyond it: no need to read them.
        forEachRow(word: word, token: token.prefix(word.count + limit)) { length, distance in
            if distance <= limit, best == nil || distance <= best!.typos { best = (distance, length) }
        }
        return best
    }

    /// Whether the first units allow a match: with a wrong first unit, the one early edit is a
    /// substitution (the second units agree), a missing or extra first letter, or a swap.
    @inline(__always)
    private static func startsClose(_ word: [UInt16], _ token: ArraySlice<UInt16>) -> Bool {
        guard word.count >= 2, token.count >= 2 else { return true }
        let (t0, t1, w0, w1) = (token[token.startIndex], token[token.startIndex + 1], word[0], word[1])
        return t0 == w0 || t0 == w1 || t1 == w1 || t1 == w0
    }

    /// Calls `body(i, d)` for each token prefix length `i`, with `d` the distance between
    /// `token.prefix(i)` and the whole `word`, with at most one early edit (three rolling rows of
    /// two layers on the stack: without an early edit, with one).
    private static func forEachRow(word: [UInt16], token: ArraySlice<UInt16>, _ body: (Int, Int) -> Void) {
        let width = word.count + 1
        let t = token
        let big = 1 << 20
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 6 * width) { rows in
            // Layer 0 (no early edit) at rows[0..<3 * width], layer 1 (at most one) after it.
            let one = 3 * width
            // Row 0: word[0..<j] deleted, early for word[0] and word[1].
            for j in 0..<width {
                rows[j] = j == 0 ? 0 : big
                rows[one + j] = j <= 1 ? j : big
            }
            body(0, min(rows[word.count], rows[one + word.count]))
            var i = 1
            for unit in t {
                let current = (i % 3) * width, previous = ((i - 1) % 3) * width, before = ((i + 1) % 3) * width
                // Column 0: token units inserted before word[0], early.
                rows[current] = big
                rows[one + current] = i == 1 ? 1 : big
                for j in 1..<max(width, 1) where j < width {
                    let same = unit == word[j - 1]
                    let earlyChange = j <= 2, earlyInsert = j <= 1, earlySwap = j <= 3
                    let swap = i > 1 && j > 1 && unit == word[j - 2] && t[t.startIndex + i - 2] == word[j - 1]
                    // Layer 0: no early edit allowed.
                    var zero = same ? rows[previous + j - 1] : (earlyChange ? big : rows[previous + j - 1] + 1)
                    if !earlyChange { zero = min(zero, rows[current + j - 1] + 1) }
                    if !earlyInsert { zero = min(zero, rows[previous + j] + 1) }
                    if swap, !earlySwap { zero = min(zero, rows[before + j - 2] + 1) }
                    // Layer 1: at most one, taken from layer 0.
                    var first = same ? rows[one + previous + j - 1] : (earlyChange ? rows[previous + j - 1] + 1 : rows[one + previous + j - 1] + 1)
                    first = min(first, earlyChange ? rows[current + j - 1] + 1 : rows[one + current + j - 1] + 1)
                    first = min(first, earlyInsert ? rows[previous + j] + 1 : rows[one + previous + j] + 1)
                    if swap { first = min(first, earlySwap ? rows[before + j - 2] + 1 : rows[one + before + j - 2] + 1) }
                    rows[current + j] = min(zero, big)
                    rows[one + current + j] = min(first, zero, big)
                }
                body(i, rows[one + current + word.count])
                i += 1
            }
        }
    }
}
