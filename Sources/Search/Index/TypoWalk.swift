/// Finds the terms within a word's typo budget by walking the sorted term dictionary as a trie
/// (children of a node are sub-ranges found by binary search on the next unit), keeping one row
/// of the optimal-string-alignment table per depth and pruning when a row exceeds the budget.
///
/// The first letter must be right (as in most engines): it bounds the walk to one subtree.
extension IndexCore {
    func collectTypoMatches(_ word: QueryWord, scratch: SearchScratch) {
        guard let first = word.units.first else { return }
        let subtree = prefixRange([first])
        guard !subtree.isEmpty else { return }
        let width = word.units.count + 1
        let maxDepth = word.units.count + word.typoBudget
        if scratch.rows.count < (maxDepth + 2) * width { scratch.rows = [Int32](repeating: 0, count: (maxDepth + 2) * width) }
        if scratch.path.count < maxDepth + 2 { scratch.path = [UInt16](repeating: 0, count: maxDepth + 2) }
        var matches = scratch.matches
        scratch.matches = []
        termUnits.withUnsafeBufferPointer { units in
            termStarts.withUnsafeBufferPointer { starts in
                word.units.withUnsafeBufferPointer { w in
                    scratch.rows.withUnsafeMutableBufferPointer { rows in
                        scratch.path.withUnsafeMutableBufferPointer { path in
                            var walker = TypoWalker(
                                units: units, starts: starts, word: w, rows: rows, path: path,
                                budget: Int32(word.typoBudget), isPrefix: word.isPrefix, matches: matches)
                            walker.start(subtree: subtree)
                            matches = walker.matches
                        }
                    }
                }
            }
        }
        scratch.matches = matches
    }
}

/// The state of one walk, on raw buffers (no exclusivity checks in the inner loop).
private struct TypoWalker {
    let units: UnsafeBufferPointer<UInt16>
    let starts: UnsafeBufferPointer<UInt32>
    let word: UnsafeBufferPointer<UInt16>
    let rows: UnsafeMutableBufferPointer<Int32>
    let path: UnsafeMutableBufferPointer<UInt16>
    let budget: Int32
    let isPrefix: Bool
    var matches: [TermMatch]

    var width: Int { word.count + 1 }

    @inline(__always) func length(_ term: Int) -> Int { Int(starts[term + 1] &- starts[term]) }
    @inline(__always) func unit(_ term: Int, _ position: Int) -> UInt16 { units[Int(starts[term]) &+ position] }

    mutating func start(subtree: Range<Int>) {
        for j in 0..<width { rows[j] = Int32(j) }
        let minimum = nextRow(depth: 0, unit: word[0])
        path[0] = word[0]
        visit(lo: subtree.lowerBound, hi: subtree.upperBound, depth: 1, minimum: minimum, covered: .max)
    }

    /// Fills row `depth + 1` for the next unit; returns its minimum.
    @inline(__always) func nextRow(depth: Int, unit c: UInt16) -> Int32 {
        let base = depth * width, next = base + width
        rows[next] = Int32(depth + 1)
        var minimum = Int32(depth + 1)
        for j in 1..<width {
            let cost: Int32 = word[j - 1] == c ? 0 : 1
            var value = min(rows[base + j] + 1, rows[next + j - 1] + 1, rows[base + j - 1] + cost)
            if depth > 0, j > 1, word[j - 1] == path[depth - 1], word[j - 2] == c {
                value = min(value, rows[base - width + j - 2] + 1)
            }
            rows[next + j] = value
            minimum = min(minimum, value)
        }
        return minimum
    }

    /// `covered`: the fewest typos with which an ancestor's whole range was already recorded.
    mutating func visit(lo: Int, hi: Int, depth: Int, minimum: Int32, covered: Int32) {
        let distance = rows[depth * width + word.count]
        let terminal = length(lo) == depth
        var covered = covered
        if distance <= budget {
            if isPrefix, distance < covered {
                matches.append(TermMatch(terms: lo..<hi, typos: Int(distance), exactTerm: terminal ? lo : -1))
                covered = distance
            } else if terminal, distance <= covered {
                // A whole term matching as well as the range above it: it ranks as an exact match.
                matches.append(TermMatch(terms: lo..<lo + 1, typos: Int(distance), exactTerm: lo))
            }
        }
        // Deeper nodes matter only if they can stay within the budget and do at least as well as `covered`.
        let bound = min(budget, covered)
        if minimum > bound || depth >= word.count + Int(budget) { return }
        var child = terminal ? lo + 1 : lo
        while child < hi {
            let c = unit(child, depth)
            var a = child + 1, b = hi  // end of the children starting with c
            while a < b {
                let mid = (a + b) >> 1
                if unit(mid, depth) <= c { a = mid + 1 } else { b = mid }
            }
            let rowMinimum = nextRow(depth: depth, unit: c)
            if rowMinimum <= bound {
                path[depth] = c
                visit(lo: child, hi: a, depth: depth + 1, minimum: rowMinimum, covered: covered)
            }
            child = a
        }
    }
}
