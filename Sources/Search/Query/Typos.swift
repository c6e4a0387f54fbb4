/// Optimal string alignment (restricted Damerau–Levenshtein) distances on UTF-16 units:
/// insertions, deletions, substitutions and transpositions of neighbours each count one, anywhere
/// in the word, the first letters included.
///
/// The index finds typos in the first letters by other walks than the rest (a free unit at the
/// start of a term makes a walk try every unit there: `IndexCore.collectTypoMatches`), and looks
/// for them only when they may change the page; this is the rule they all add up to.
enum Typos {
    /// Leading units the index walk without early typos keeps fixed for a typo budget.
    static func exactLead(budget: Int) -> Int { budget >= 2 ? 2 : 1 }

    /// The distance between `a` (the word) and `b` (a token) if it is at most `limit`.
    static func distance(_ a: [UInt16], _ b: ArraySlice<UInt16>, limit: Int) -> Int? {
        if abs(a.count - b.count) > limit { return nil }
        if limit == 0 { return a.elementsEqual(b) ? 0 : nil }
        if !startsClose(a, b, limit: limit) { return nil }
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
        if word.isEmpty || !startsClose(word, token, limit: limit) { return nil }
        var best: (typos: Int, length: Int)?
        // Token prefixes longer than the word plus the budget are beyond it: no need to read them.
        forEachRow(word: word, token: token.prefix(word.count + limit)) { length, distance in
            if distance <= limit, best == nil || distance <= best!.typos { best = (distance, length) }
        }
        return best
    }

    /// Whether the first units allow a match within one typo (two may change both): with a wrong
    /// first unit, the one edit there is a substitution (the second units agree), a missing or
    /// extra first letter, or a swap.
    @inline(__always)
    private static func startsClose(_ word: [UInt16], _ token: ArraySlice<UInt16>, limit: Int) -> Bool {
        guard limit < 2, word.count >= 2, token.count >= 2 else { return true }
        let (t0, t1, w0, w1) = (token[token.startIndex], token[token.startIndex + 1], word[0], word[1])
        return t0 == w0 || t0 == w1 || t1 == w1 || t1 == w0
    }

    /// Calls `body(i, d)` for each token prefix length `i`, with `d` the distance between
    /// `token.prefix(i)` and the whole `word`: OSA rows, three rolling rows on the stack.
    private static func forEachRow(word: [UInt16], token: ArraySlice<UInt16>, _ body: (Int, Int) -> Void) {
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
}
