extension IndexCore {
    /// How documents of equal rank from the two cores of a merge are ordered.
    enum EqualRanks {
        /// The older core's first: a merge of two middle layers, as building them in that order does.
        case olderFirst
        /// By id: a delta, whose documents are sorted by id before their ranks.
        case byID
    }

    /// The core over documents `older.numbers` of `older.core` and `newer.numbers` of
    /// `newer.core` (each in its core's order), without precomputed prefixes, merged from the two
    /// cores' structures: their dictionaries (the terms the documents taken use), forward indexes
    /// and term views are merged in order and renumbered, the postings inverted from the merged
    /// forward index. Nothing is tokenized, interned, hashed or sorted again, so a write's run
    /// costs about the size of the delta in copies (issue 27 part 4), not a build of it.
    ///
    /// The same core as building the documents does (``build(reindexing:heavyPolicy:ranking:)``
    /// with the older's first for `.olderFirst`, ``Snapshot/deltaCore(_:ranking:)`` for `.byID`),
    /// array for array, except that a document's terms may be listed in another order (no search
    /// depends on it). `.byID` needs ids unique across the two (the caller's check) and both
    /// cores ordered by rank, then id.
    static func merging(
        _ older: (core: IndexCore, numbers: [Int]), _ newer: (core: IndexCore, numbers: [Int]), equalRanks: EqualRanks
    ) -> IndexCore {
        let a = older.core, b = newer.core
        // 1. The terms the documents taken use, then both dictionaries merged in order: each map
        //    gives a term's number in the merged one (`.max`: left out).
        var olderMap = a.termsUsed(by: older.numbers), newerMap = b.termsUsed(by: newer.numbers)
        var termUnits: [UInt16] = [], termStarts: [UInt32] = [0], termKeys: [UInt64] = []
        termStarts.reserveCapacity(a.termCount + b.termCount + 1)
        termKeys.reserveCapacity(a.termCount + b.termCount)
        termUnits.reserveCapacity(a.termUnits.count + b.termUnits.count)
        var i = 0, j = 0
        while true {
            while i < a.termCount, olderMap[i] == .max { i += 1 }
            while j < b.termCount, newerMap[j] == .max { j += 1 }
            guard i < a.termCount || j < b.termCount else { break }
            let order = i == a.termCount ? 1 : j == b.termCount ? -1 : Self.compareTerms(a, i, b, j)
            let number = UInt32(termKeys.count)
            if order <= 0 {
                termUnits.append(copying: a.termUnits, Int(a.termStarts[i])..<Int(a.termStarts[i + 1]))
                termKeys.append(a.termKeys[i])
                olderMap[i] = number
                i += 1
                if order == 0 {
                    newerMap[j] = number
                    j += 1
                }
            } else {
                termUnits.append(copying: b.termUnits, Int(b.termStarts[j])..<Int(b.termStarts[j + 1]))
                termKeys.append(b.termKeys[j])
                newerMap[j] = number
                j += 1
            }
            termStarts.append(UInt32(termUnits.count))
        }

        // 2. The documents merged by rank (then as `equalRanks` says), each with its terms
        //    renumbered (flags kept) and its name hashes.
        let count = older.numbers.count + newer.numbers.count
        precondition(count <= maxDocuments, "more than \(maxDocuments) documents in one index")
        var documents: [Document] = [], ranks: [Double] = [], rankOffsets: [UInt64] = [], countries: [UInt16] = []
        documents.reserveCapacity(count)
        ranks.reserveCapacity(count)
        rankOffsets.reserveCapacity(count)
        countries.reserveCapacity(count)
        var docTerms: [UInt32] = [], docTermStarts: [UInt32] = [0], nameHashes: [UInt64] = [], nameHashStarts: [UInt32] = [0]
        docTerms.reserveCapacity(older.numbers.reduce(0) { $0 + a.termsOf($1).count } + newer.numbers.reduce(0) { $0 + b.termsOf($1).count })
        docTermStarts.reserveCapacity(count + 1)
        nameHashStarts.reserveCapacity(count + 1)
        func take(_ d: Int, of core: IndexCore, map: [UInt32]) {
            documents.append(core.documents[d])
            ranks.append(core.ranks[d])
            rankOffsets.append(core.rankOffsets[d])
            countries.append(core.countries[d])
            for k in core.termsOf(d) {
                let entry = core.docTerms[k]
                docTerms.append(entry & ~docMask | map[Int(entry & docMask)])
            }
            docTermStarts.append(UInt32(docTerms.count))
            nameHashes.append(copying: core.nameHashes, Int(core.nameHashStarts[d])..<Int(core.nameHashStarts[d + 1]))
            nameHashStarts.append(UInt32(nameHashes.count))
        }
        var p = 0, q = 0
        while p < older.numbers.count || q < newer.numbers.count {
            let takeOlder: Bool
            if q == newer.numbers.count {
                takeOlder = true
            } else if p == older.numbers.count {
                takeOlder = false
            } else {
                let (x, y) = (a.ranks[older.numbers[p]], b.ranks[newer.numbers[q]])
                if x != y {
                    takeOlder = x > y
                } else {
                    switch equalRanks {
                    case .olderFirst: takeOlder = true
                    case .byID: takeOlder = a.documents[older.numbers[p]].id <= b.documents[newer.numbers[q]].id
                    }
                }
            }
            if takeOlder {
                take(older.numbers[p], of: a, map: olderMap)
                p += 1
            } else {
                take(newer.numbers[q], of: b, map: newerMap)
                q += 1
            }
        }

        let views = TermViews(merging: a.views, olderMap, b.views, newerMap, termUnits: termUnits, termStarts: termStarts)
        return IndexCore(
            documents: documents, ranks: ranks, rankOffsets: rankOffsets, countries: countries,
            termUnits: termUnits, termStarts: termStarts, termKeys: termKeys, docTerms: docTerms, docTermStarts: docTermStarts,
            nameHashes: nameHashes, nameHashStarts: nameHashStarts, views: views, ranking: a.ranking)
    }

    /// The positions in `docTerms` of document `d`'s terms.
    @inline(__always) private func termsOf(_ d: Int) -> Range<Int> {
        Int(docTermStarts[d])..<Int(docTermStarts[d + 1])
    }

    /// Per term, 0 if one of documents `numbers` has it, else `.max`.
    private func termsUsed(by numbers: [Int]) -> [UInt32] {
        var used = [UInt32](repeating: .max, count: termCount)
        for d in numbers {
            for k in termsOf(d) { used[Int(docTerms[k] & Self.docMask)] = 0 }
        }
        return used
    }

    /// The order of term `x` of `a` and term `y` of `b` in a dictionary (-1, 0, 1): by their
    /// packed keys, then their units (the order a build sorts its terms in).
    private static func compareTerms(_ a: IndexCore, _ x: Int, _ b: IndexCore, _ y: Int) -> Int {
        let (xKey, yKey) = (a.termKeys[x], b.termKeys[y])
        if xKey != yKey { return xKey < yKey ? -1 : 1 }
        let (xStart, xEnd) = (Int(a.termStarts[x]), Int(a.termStarts[x + 1]))
        let (yStart, yEnd) = (Int(b.termStarts[y]), Int(b.termStarts[y + 1]))
        var k = 0
        while xStart + k < xEnd, yStart + k < yEnd {
            let (u, v) = (a.termUnits[xStart + k], b.termUnits[yStart + k])
            if u != v { return u < v ? -1 : 1 }
            k += 1
        }
        let (xLength, yLength) = (xEnd - xStart, yEnd - yStart)
        return xLength == yLength ? 0 : xLength < yLength ? -1 : 1
    }
}

extension Array where Element: BitwiseCopyable {
    /// Appends `source[range]` as one copy (a slice's generic `append(contentsOf:)` cost a few
    /// hundred instructions a call, and a merge makes one a term and one a document).
    @inline(__always) mutating func append(copying source: [Element], _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        source.withUnsafeBufferPointer { append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }
}
