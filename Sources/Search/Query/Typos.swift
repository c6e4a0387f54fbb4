/// Optimal string alignment (restricted Damerau–Levenshtein) distances on UTF-16 units:
/// insertions, deletions, substitutions and transpositions of neighbours each count one.
///
/// With one typo allowed it may fall anywhere, the first letter included. With two, at most one
/// may be *early* (touch one of the word's first two letters: substitute, delete or swap it, or
/// insert a letter before the second), and then the other may not touch the third letter either
/// (it comes after it). The index walk has the same rule (`IndexCore.collectTypoMatches`): a free
/// unit at the start of a term makes a walk try every unit there, so each early edit is a walk
/// whose first units are fixed.
enum Typos {
    /// Leading units the index walk without early typos keeps fixed for a typo budget.
    static func exactLead(budget: Int) -> Int { budget >= 2 ? 2 : 1 }

    /// The distance between `a` (the word) and `b` (a token) if it is at most `limit`.
    static func distance(_ a: [UInt16], _ b: ArraySlice<UInt16>, limit: Int) -> Int? {
        if abs(a.count - b.count) > limit { return nil }
        if limit == 0 { return a.elementsEqual(b) ? 0 : nil }
        if !startsClose(a, b) { return nil }
        var result = Int.max
        forEachRow(word: a, token: b, limit: limit) { length, distance in
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
        forEachRow(word: word, token: token.prefix(word.count + limit), limit: limit) { length, distance in
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
    /// `token.prefix(i)` and the whole `word` under the rule of `limit`.
    private static func forEachRow(word: [UInt16], token: ArraySlice<UInt16>, limit: Int, _ body: (Int, Int) -> Void) {
        if limit >= 2 {
            forEachRowWithEarlyRule(word: word, token: token, body)
        } else {
            forEachPlainRow(word: word, token: token, body)
        }
    }

    /// Plain OSA rows (three rolling rows on the stack): one typo may fall anywhere.
    private static func forEachPlainRow(word: [UInt16], token: ArraySlice<UInt16>, _ body: (Int, Int) -> Void) {
        let width = word.count + 1
        let t = token
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * width) { rows in
            for j in 0..<width { rows[j] = j }
            body(0, word.count)
            var i = 1
            for unit in t {
                let current = (i % 3) * width, previous = ((i - 1) % 3) * width, before = ((i + 1) % 3) * width
                rows[current] = i
                for j in 1..<max(width, 1) where j < width {
                    let cost = unit == word[j - 1] ? 0 : 1
                    var value = min(rows[previous + j] + 1, rows[current + j - 1] + 1, rows[previous + j - 1] + cost)
                    if i > 1, j > 1, unit == word[j - 2], t[t.startIndex + i - 2] == word[j - 1] {
                        value = min(value, rows[before + j - 2] + 1)
                    }
                    rows[current + j] = value
                }
                body(i, rows[current + word.count])
                i += 1
            }
        }
    }

    /// OSA rows under the early rule, three layers of three rolling rows: `z` without early edits,
    /// `n` without edits touching the first three letters ("front" edits), `f` with at most one
    /// front edit (taken from `n`). The distance is the smaller of `z` and `f`.
    ///
    /// An edit at word column `j` (between word prefixes of `j - 1` and `j` units) is early when
    /// it substitutes or deletes `word[j - 1]` with `j <= 2`, inserts at `j <= 1`, or swaps
    /// `word[j - 2...j - 1]` with `j <= 3`; front with `j <= 3`, `j <= 2` and `j <= 4`.
    private static func forEachRowWithEarlyRule(word: [UInt16], token: ArraySlice<UInt16>, _ body: (Int, Int) -> Void) {
        let width = word.count + 1
        let t = token
        let big = 1 << 20
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 9 * width) { rows in
            let (z, n, f) = (0, 3 * width, 6 * width)
            // Row 0: word[0..<j] deleted (word[0] alone is one front edit).
            for j in 0..<width {
                rows[z + j] = j == 0 ? 0 : big
                rows[n + j] = j == 0 ? 0 : big
                rows[f + j] = j <= 1 ? j : big
            }
            body(0, min(rows[z + word.count], rows[f + word.count]))
            var i = 1
            for unit in t {
                let current = (i % 3) * width, previous = ((i - 1) % 3) * width, before = ((i + 1) % 3) * width
                // Column 0: token units inserted before word[0] (early, front).
                rows[z + current] = big
                rows[n + current] = big
                rows[f + current] = i == 1 ? 1 : big
                for j in 1..<max(width, 1) where j < width {
                    let same = unit == word[j - 1]
                    let swap = i > 1 && j > 1 && unit == word[j - 2] && t[t.startIndex + i - 2] == word[j - 1]
                    let (earlyChange, earlyInsert, earlySwap) = (j <= 2, j <= 1, j <= 3)
                    let (frontChange, frontInsert, frontSwap) = (j <= 3, j <= 2, j <= 4)
                    // Match or substitution, deletion of word[j - 1], insertion of the token unit, swap.
                    func layer(_ from: Int, allowChange: Bool, allowInsert: Bool, allowSwap: Bool) -> Int {
                        var value = same ? rows[from + previous + j - 1] : (allowChange ? rows[from + previous + j - 1] + 1 : big)
                        if allowChange { value = min(value, rows[from + current + j - 1] + 1) }
                        if allowInsert { value = min(value, rows[from + previous + j] + 1) }
                        if swap, allowSwap { value = min(value, rows[from + before + j - 2] + 1) }
                        return value
                    }
                    let zero = layer(z, allowChange: !earlyChange, allowInsert: !earlyInsert, allowSwap: !earlySwap)
                    let none = layer(n, allowChange: !frontChange, allowInsert: !frontInsert, allowSwap: !frontSwap)
                    var one = layer(f, allowChange: !frontChange, allowInsert: !frontInsert, allowSwap: !frontSwap)
                    // The one front edit, from the layer without any.
                    if !same, frontChange { one = min(one, rows[n + previous + j - 1] + 1) }
                    if frontChange { one = min(one, rows[n + current + j - 1] + 1) }
                    if frontInsert { one = min(one, rows[n + previous + j] + 1) }
                    if swap, frontSwap { one = min(one, rows[n + before + j - 2] + 1) }
                    rows[z + current + j] = min(zero, big)
                    rows[n + current + j] = min(none, big)
                    rows[f + current + j] = min(one, none, big)
                }
                body(i, min(rows[z + current + word.count], rows[f + current + word.count]))
                i += 1
            }
        }
    }
}
