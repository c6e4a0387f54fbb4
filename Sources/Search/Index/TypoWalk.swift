/// Finds the terms within a word's typo budget by walking the sorted term dictionary as a trie
/// (children of a node are sub-ranges found by binary search on the next unit), keeping one row
/// of the optimal-string-alignment table per depth and pruning when a row exceeds the budget.
extension IndexCore {
    func collectTypoMatches(_ word: QueryWord, scratch: SearchScratch) {
        let width = word.units.count + 1
        let maxDepth = word.units.count + word.typoBudget
        let needed = (maxDepth + 2) * width
        if scratch.rows.count < needed { scratch.rows = [Int32](repeating: 0, count: needed) }
        if scratch.path.count < maxDepth + 2 { scratch.path = [UInt16](repeating: 0, count: maxDepth + 2) }
        for j in 0..<width { scratch.rows[j] = Int32(j) }
        walk(lo: 0, hi: termCount, depth: 0, minimum: 0, word: word, scratch: scratch)
    }

    /// `covered`: the fewest typos with which an ancestor's whole range was already recorded.
    private func walk(lo: Int, hi: Int, depth: Int, minimum: Int32, word: QueryWord, scratch: SearchScratch, covered: Int32 = .max) {
        let w = word.units
        let width = w.count + 1
        let budget = Int32(word.typoBudget)
        let distance = scratch.rows[depth * width + w.count]
        let terminal = termLength(lo) == depth
        var covered = covered
        if depth > 0, distance <= budget {
            if word.isPrefix, distance < covered {
                scratch.matches.append(TermMatch(terms: lo..<hi, typos: Int(distance), exactTerm: terminal ? lo : -1))
                covered = distance
            } else if terminal, distance <= covered {
                // A whole term matching as well as the range above it: it ranks as an exact match.
                scratch.matches.append(TermMatch(terms: lo..<lo + 1, typos: Int(distance), exactTerm: lo))
            }
        }
        // Deeper nodes can only matter if they can reach the budget and do at least as well as `covered`.
        if minimum > min(budget, covered) { return }
        if depth >= w.count + word.typoBudget { return }
        var child = terminal ? lo + 1 : lo
        let base = depth * width, next = (depth + 1) * width
        while child < hi {
            let c = unit(child, depth)
            // End of the children starting with c.
            var a = child + 1, b = hi
            while a < b {
                let mid = (a + b) / 2
                if unit(mid, depth) <= c { a = mid + 1 } else { b = mid }
            }
            // Next row of the table.
            scratch.rows[next] = Int32(depth + 1)
            var rowMinimum = Int32(depth + 1)
            for j in 1..<width {
                let cost: Int32 = w[j - 1] == c ? 0 : 1
                var value = min(scratch.rows[base + j] + 1, scratch.rows[next + j - 1] + 1, scratch.rows[base + j - 1] + cost)
                if depth > 0, j > 1, w[j - 1] == scratch.path[depth - 1], w[j - 2] == c {
                    value = min(value, scratch.rows[base - width + j - 2] + 1)
                }
                scratch.rows[next + j] = value
                rowMinimum = min(rowMinimum, value)
            }
            scratch.path[depth] = c
            if rowMinimum <= min(budget, covered) {
                walk(lo: child, hi: a, depth: depth + 1, minimum: rowMinimum, word: word, scratch: scratch, covered: covered)
            }
            child = a
        }
    }
}
