/// Optimal string alignment (restricted Damerau–Levenshtein) distances on UTF-16 units:
/// insertions, deletions, substitutions and transpositions of neighbours each count one.
/// With typos allowed, the first letters must still agree (the index walk has the same rule).
enum Typos {
    /// The distance between `a` and `b` if it is at most `limit`.
    static func distance(_ a: [UInt16], _ b: ArraySlice<UInt16>, limit: Int) -> Int? {
        if abs(a.count - b.count) > limit { return nil }
        if limit == 0 { return a.elementsEqual(b) ? 0 : nil }
        if a.first != b.first { return nil }
        let table = table(word: a, token: b)
        let result = table.last![a.count]
        return result <= limit ? result : nil
    }

    /// The smallest distance between `word` and a prefix of `token`, if at most `limit`, with the
    /// length of the longest token prefix reaching it.
    static func prefixDistance(word: [UInt16], token: ArraySlice<UInt16>, limit: Int) -> (typos: Int, length: Int)? {
        if limit == 0 {
            return token.starts(with: word) ? (0, word.count) : nil
        }
        if word.first != token.first { return nil }
        let table = table(word: word, token: token)
        var best: (typos: Int, length: Int)?
        for (length, row) in table.enumerated() where row[word.count] <= limit {
            if best == nil || row[word.count] <= best!.typos { best = (row[word.count], length) }
        }
        return best
    }

    /// `rows[i][j]`: distance between `token.prefix(i)` and `word.prefix(j)`.
    private static func table(word: [UInt16], token: ArraySlice<UInt16>) -> [[Int]] {
        let t = Array(token)
        var rows = [Array(0...word.count)]
        for i in 1...max(t.count, 1) where i <= t.count {
            var row = [Int](repeating: 0, count: word.count + 1)
            row[0] = i
            for j in 1...max(word.count, 1) where j <= word.count {
                let cost = t[i - 1] == word[j - 1] ? 0 : 1
                row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, t[i - 1] == word[j - 2], t[i - 2] == word[j - 1] {
                    row[j] = min(row[j], rows[i - 2][j - 2] + 1)
                }
            }
            rows.append(row)
        }
        return rows
    }
}
