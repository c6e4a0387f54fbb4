/// Finds the terms within a word's typo budget by walking the sorted term dictionary as a trie
/// (children of a node are sub-ranges found by binary search on the next unit), keeping one row
/// of the optimal-string-alignment table per depth and pruning when a row exceeds the budget.
///
/// The first letter must be right (as in most engines), the first two for words long enough for
/// two typos: it bounds the walk to one subtree.
extension IndexCore {
    func collectTypoMatches(_ word: QueryWord, scratch: SearchScratch) {
        let lead = Typos.exactLead(budget: word.typoBudget)
        guard word.units.count > lead else { return }
        let subtree = prefixRange(Array(word.units[0..<lead]))
        guard !subtree.isEmpty else { return }
        let width = word.units.count + 1
        let maxDepth = word.units.count + word.typoBudget
        if scratch.rows.count < (maxDepth + 2) * width { scratch.rows = [Int32](repeating: 0, count: (maxDepth + 2) * width) }
        if scratch.path.count < maxDepth + 2 { scratch.path = [UInt16](repeating: 0, count: maxDepth + 2) }
        var matches = scratch.matches
        scratch.matches = []
        runEnds[0].withUnsafeBufferPointer { ends1 in
        runEnds[1].withUnsafeBufferPointer { ends2 in
        runEnds[2].withUnsafeBufferPointer { ends3 in
        termKeys.withUnsafeBufferPointer { keys in
        termUnits.withUnsafeBufferPointer { units in
            termStarts.withUnsafeBufferPointer { starts in
                word.units.withUnsafeBufferPointer { w in
                    scratch.rows.withUnsafeMutableBufferPointer { rows in
                        scratch.path.withUnsafeMutableBufferPointer { path in
                            var walker = TypoWalker(
                                units: units, starts: starts, keys: keys, runEnds: (ends1, ends2, ends3), word: w, rows: rows, path: path,
                                budget: Int32(word.typoBudget), isPrefix: word.isPrefix, matches: matches)
                            walker.start(subtree: subtree, lead: lead)
                            matches = walker.matches
                        }
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

/// The state of one walk, on raw buffers (no exclusivity checks in the inner loop).
private struct TypoWalker {
    let units: UnsafeBufferPointer<UInt16>
    let starts: UnsafeBufferPointer<UInt32>
    let keys: UnsafeBufferPointer<UInt64>
    let runEnds: (UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt32>)
    let word: UnsafeBufferPointer<UInt16>
    let rows: UnsafeMutableBufferPointer<Int32>
    let path: UnsafeMutableBufferPointer<UInt16>
    let budget: Int32
    let isPrefix: Bool
    var matches: [TermMatch]

    var width: Int { word.count + 1 }

    @inline(__always) func length(_ term: Int) -> Int { Int(starts[term + 1] &- starts[term]) }
    @inline(__always) func unit(_ term: Int, _ position: Int) -> UInt16 {
        position < 4
            ? UInt16(truncatingIfNeeded: keys[term] >> UInt64(48 - 16 * position))
            : units[Int(starts[term]) &+ position]
    }

    mutating func start(subtree: Range<Int>, lead: Int) {
        for j in 0..<width { rows[j] = Int32(j) }
        var minimum: Int32 = 0
        for depth in 0..<lead {
            minimum = nextRow(depth: depth, unit: word[depth])
            path[depth] = word[depth]
        }
        visit(lo: subtree.lowerBound, hi: subtree.upperBound, depth: lead, minimum: minimum, covered: .max)
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
        let first = terminal ? lo + 1 : lo
        guard first < hi else { return }
        if minimum < bound {
            // Any next unit may keep the row within bound: visit every child.
            var child = first
            while child < hi {
                let c = unit(child, depth)
                let end = childEnd(child, depth: depth, unit: c, hi: hi)
                descend(lo: child, hi: end, depth: depth, unit: c, bound: bound, covered: covered)
                child = end
            }
        } else {
            // The row is at the bound: only a unit that matches the word where the row is within
            // bound (or completes a transposition) can stay within it. Look those children up.
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 2 * width) { candidates in
                var count = 0
                let row = depth * width
                for j in 1..<width where rows[row + j - 1] <= bound {
                    candidates[count] = word[j - 1]
                    count += 1
                }
                if depth > 0 {
                    for j in 2..<max(width, 2) where word[j - 1] == path[depth - 1] && rows[row - width + j - 2] + 1 <= bound {
                        candidates[count] = word[j - 2]
                        count += 1
                    }
                }
                var used = UnsafeMutableBufferPointer(rebasing: candidates[0..<count])
                used.sort()
                var previous: UInt16?
                var from = first
                for c in used where c != previous {
                    previous = c
                    // Candidates ascend, so each search starts where the previous one ended.
                    let start = lowerBound(of: c, from: from, to: hi, depth: depth)
                    guard start < hi else { break }
                    from = start
                    guard unit(start, depth) == c else { continue }
                    let end = childEnd(start, depth: depth, unit: c, hi: hi)
                    descend(lo: start, hi: end, depth: depth, unit: c, bound: bound, covered: covered)
                    from = end
                }
            }
        }
    }

    @inline(__always) mutating func descend(lo: Int, hi: Int, depth: Int, unit c: UInt16, bound: Int32, covered: Int32) {
        let rowMinimum = nextRow(depth: depth, unit: c)
        if rowMinimum <= bound {
            path[depth] = c
            visit(lo: lo, hi: hi, depth: depth + 1, minimum: rowMinimum, covered: covered)
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
