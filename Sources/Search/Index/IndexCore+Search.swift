/// Filters compiled for one core.
struct CoreFilter {
    var countryMask: [Bool]?
    /// Documents from this number on are below the minimum rank.
    var documentLimit: Int
    /// Base documents replaced or deleted since the core was built: a bitset, or empty.
    var tombstones: [UInt64]
    var tombstoneList: [UInt32]

    var isEmpty: Bool { countryMask == nil && tombstoneList.isEmpty }
}

/// Up to `need` best ranking keys (ascending) and the number of matching documents.
struct CoreHits {
    var keys: [UInt64]
    var total: Int
    /// Early typos were looked for: a hit with typos may match with a wrong first letter.
    var earlyTypos = false
}

extension IndexCore {
    func filter(for query: ParsedQuery, tombstones: [UInt64] = [], tombstoneList: [UInt32] = []) -> CoreFilter {
        CoreFilter(
            countryMask: query.countryMask,
            documentLimit: query.minRank.map { documentsRanked(atLeast: $0) } ?? count,
            tombstones: tombstones, tombstoneList: tombstoneList)
    }

    /// The best `need` documents for `words` and how many match.
    func search(_ words: [QueryWord], filter: CoreFilter, need: Int, scratch: SearchScratch, useHeavy: Bool = true) -> CoreHits {
        guard let first = words.first, count > 0 else { return CoreHits(keys: [], total: 0) }
        if useHeavy, words.count == 1, first.isPrefix, filter.countryMask == nil, filter.documentLimit == count,
            let hits = heavy.answer(first.units, need: need, core: self, filter: filter)
        {
            return hits
        }
        var accumulator = scratch.accumulator(documents: count)
        defer { scratch.accumulator = accumulator }
        let missing = UInt64(words.count - 1)
        let limit = UInt32(filter.documentLimit)
        let checkTombstones = !filter.tombstoneList.isEmpty
        let termsPerDocument = max(1, docTerms.count / max(count, 1))
        var counted = 0  // documents counted but not ranked (see below)
        var earlyTypos = false
        let oneWord = ranking.oneWord, oneWordTypos = ranking.oneWordTypos

        let single = words.count == 1
        for (index, word) in words.enumerated() {
            // Early typos (`collectTypoMatches`) are a fallback, their walks and postings cost the
            // most: with one word, looked for only when they could still enter the page (below);
            // with several, for a word found without typos in fewer than `need` documents.
            collectMatches(word, scratch: scratch)
            if !single, word.typoBudget > 0, postingsWithoutTypos(scratch.matches) < need {
                collectTypoMatches(word, walks: .earlyOneTypo, scratch: scratch)
                earlyTypos = true
                // Two typos anywhere: only when nothing matches with fewer.
                if scratch.matches.isEmpty { collectTypoMatches(word, walks: .anywhere, scratch: scratch) }
            }
            let mark = UInt8(index + 1)
            if index > 0 {
                // Later words only refine admitted documents: check them through the forward index
                // when that is cheaper than reading the word's postings.
                var postingCount = 0
                for match in scratch.matches {
                    if match.view == .terms {
                        postingCount += Int(postingStarts[match.terms.upperBound] - postingStarts[match.terms.lowerBound])
                    } else {
                        for position in match.terms {
                            let term = views.term(position, in: match.view)
                            postingCount += Int(postingStarts[term + 1] - postingStarts[term])
                        }
                    }
                }
                let hasBits = word.isPrefix && HeavyPrefixes.initialKey(word.units).map { heavy.initials[$0] != nil } == true
                if hasBits || postingCount > accumulator.touchedCount * termsPerDocument * 2 {
                    refineThroughDocuments(word, mark: mark, matches: scratch.matches, accumulator: &accumulator)
                    continue
                }
            }
            // Matches by increasing typos. With one word, once `need` documents are found, a
            // document with more typos enters the top only if its rank outweighs them: those
            // ranked too low for it (from `typoLimit` on) are only counted for `total`.
            oneWord.withUnsafeBufferPointer { oneWord in  // one penalty read a posting, unchecked
                // The page's last key so far, once it is full: computed once, after the matches
                // without typos (keys only improve and documents only come, so it stays a bound).
                var bound: UInt64?
                for level in 0...2 {
                    var typoLimit = limit
                    if single, level > 0, level <= word.typoBudget, accumulator.touchedCount >= need {
                        if bound == nil { bound = pageBound(need: need, accumulator: accumulator) }
                        typoLimit = min(limit, documentsOutranking(bound!, typos: level))
                    }
                    if single, word.typoBudget > 0 {
                        // One early typo when a document with one typo may enter the page; two anywhere
                        // (both early too) only when nothing matches with fewer: that walk finds the
                        // clean walk's two-typo terms again, which are dropped first.
                        if level == 1, typoLimit > 0 {
                            collectTypoMatches(word, walks: .earlyOneTypo, scratch: scratch)
                            earlyTypos = true
                        } else if level == 2, word.typoBudget >= 2, accumulator.touchedCount + counted == 0 {
                            scratch.matches.removeAll { $0.typos == 2 }
                            collectTypoMatches(word, walks: .anywhere, scratch: scratch)
                            earlyTypos = true
                        }
                    }
                    for match in scratch.matches where match.typos == level {
                        // In the dictionary's order only the range's first term can equal the word.
                        let first = match.terms.lowerBound
                        let exactTerm = match.view == .terms && !match.terms.isEmpty
                            && termLength(first) == match.exactLength ? first : -1
                        for position in match.terms {
                            let term = views.term(position, in: match.view)
                            if match.excludedPosition >= 0, termLength(term) > match.excludedPosition,
                                unit(term, match.excludedPosition) == match.excludedUnit
                            {
                                continue
                            }
                            // One word: how the term occurs in the document decides (its flags, see
                            // `RankingRules`); several words: the term equals the word here, and the whole
                            // query must be a name (checked below).
                            let equal = !word.isPrefix
                                || (match.view == .terms ? term == exactTerm : termLength(term) == match.exactLength)
                            let typos = single
                                ? oneWordTypos[match.typos] : RankKey.contribution(typos: match.typos, prefix: false, alternate: false)
                            let penalties = equal ? 32 : 0
                            for i in Int(postingStarts[term])..<Int(postingStarts[term + 1]) {
                                let posting = postings[i]
                                let d = posting & Self.docMask
                                if d >= limit { break }
                                if index == 0 {
                                    if let mask = filter.countryMask {
                                        let country = countries[Int(d)]
                                        if country == CountryCode.none || !mask[Int(country)] { continue }
                                    }
                                    if checkTombstones, filter.tombstones[Int(d) >> 6] & (1 << UInt64(d & 63)) != 0 { continue }
                                }
                                if d >= typoLimit {
                                    counted += accumulator.count(d)
                                    continue
                                }
                                let contribution: UInt64
                                if single {
                                    contribution = typos &+ oneWord[penalties | Int(posting >> Self.flagShift)]
                                } else {
                                    contribution = typos | (equal ? 0 : 1 << RankKey.prefixShift)
                                        | (posting & Self.inNameFlag != 0 ? 0 : 1 << RankKey.alternateShift)
                                }
                                accumulator.record(d, word: mark, contribution: contribution, missing: missing)
                            }
                        }
                    }
                }
            }
            if index == 0, accumulator.touchedCount + counted == 0 { return CoreHits(keys: [], total: 0) }
        }
        if words.count > 1 { finishSeveralWords(words, accumulator: &accumulator) }
        let keys = smallestKeys(need: need, oneWord: words.count == 1, accumulator: accumulator, scratch: scratch)
        return CoreHits(keys: keys, total: accumulator.touchedCount + counted, earlyTypos: earlyTypos)
    }

    /// With one word, the `need`-th smallest final key of the documents found so far
    /// (`touchedCount >= need`): the page's last if no other document came.
    private func pageBound(need: Int, accumulator: Accumulator) -> UInt64 {
        var heap = BoundedHeap<UInt64>(capacity: need)
        rankOffsets.withUnsafeBufferPointer { offsets in
            for d in accumulator.touched { heap.offer(accumulator.key[Int(d)] &+ offsets[Int(d)], precedes: <) }
        }
        return heap.elements.first ?? .max
    }

    /// The number of first documents (in rank order) that could still have a final key below
    /// `bound` with one word matched with `typos` typos (the smallest penalty but theirs).
    private func documentsOutranking(_ bound: UInt64, typos: Int) -> UInt32 {
        let least = ranking.oneWordTypos[typos] & ~(1 << RankKey.penaltyShift - 1)
        return rankOffsets.withUnsafeBufferPointer { offsets in
            var (a, b) = (0, offsets.count)
            while a < b {  // first document whose offset alone reaches the bound
                let mid = (a + b) >> 1
                if offsets[mid] &+ least < bound { a = mid + 1 } else { b = mid }
            }
            return UInt32(a)
        }
    }

    /// Postings of the matches without typos (all in the dictionary's order).
    private func postingsWithoutTypos(_ matches: [TermMatch]) -> Int {
        var count = 0
        for match in matches where match.typos == 0 {
            count += Int(postingStarts[match.terms.upperBound] - postingStarts[match.terms.lowerBound])
        }
        return count
    }

    /// Fills `scratch.matches` with the term ranges matching `word` (with typos, those of the walk
    /// under its first letters as typed: `collectTypoMatches`).
    private func collectMatches(_ word: QueryWord, scratch: SearchScratch) {
        scratch.matches.removeAll(keepingCapacity: true)
        if word.typoBudget > 0 {
            collectTypoMatches(word, walks: .clean, scratch: scratch)
        } else if word.isPrefix {
            let range = prefixRange(word.units)
            if !range.isEmpty {
                scratch.matches.append(TermMatch(terms: range, typos: 0, exactLength: word.units.count))
            }
        } else if let term = exactTerm(word.units) {
            scratch.matches.append(TermMatch(terms: term..<term + 1, typos: 0, exactLength: word.units.count))
        }
    }

    /// Applies a later word to the admitted documents by reading each one's terms (or, for one or
    /// two letters, the precomputed bitsets).
    private func refineThroughDocuments(_ word: QueryWord, mark: UInt8, matches: [TermMatch], accumulator: inout Accumulator) {
        let alternate = RankKey.contribution(typos: 0, prefix: true, alternate: true)
        let name = RankKey.contribution(typos: 0, prefix: true, alternate: false)
        if word.isPrefix, word.typoBudget == 0, let key = HeavyPrefixes.initialKey(word.units), let bits = heavy.initials[key] {
            for d in accumulator.touched {
                let (index, bit) = (Int(d) >> 6, UInt64(1) << UInt64(d & 63))
                guard bits.any[index] & bit != 0 else { continue }
                accumulator.record(d, word: mark, contribution: bits.name[index] & bit != 0 ? name : alternate, missing: 0)
            }
            // The term equal to the word, if any, makes an exact word match.
            if let range = matches.first?.terms, !range.isEmpty, termLength(range.lowerBound) == word.units.count {
                let exact = range.lowerBound
                for i in Int(postingStarts[exact])..<Int(postingStarts[exact + 1]) {
                    let posting = postings[i]
                    let contribution = RankKey.contribution(typos: 0, prefix: false, alternate: posting & Self.inNameFlag == 0)
                    accumulator.record(posting & Self.docMask, word: mark, contribution: contribution, missing: 0)
                }
            }
            return
        }
        // Matches in the dictionary's own order (no early typos) need no position lookups.
        let inTermOrder = matches.allSatisfy { $0.view == .terms && $0.excludedPosition < 0 }
        docTerms.withUnsafeBufferPointer { docTerms in
            docTermStarts.withUnsafeBufferPointer { starts in
                for d in accumulator.touched {
                    for i in Int(starts[Int(d)])..<Int(starts[Int(d) + 1]) {
                        let entry = docTerms[i]
                        let term = Int(entry & Self.docMask)
                        if inTermOrder {
                            for match in matches where match.terms.contains(term) {
                                let exact = !word.isPrefix || termLength(term) == match.exactLength
                                let contribution = RankKey.contribution(typos: match.typos, prefix: !exact, alternate: entry & Self.inNameFlag == 0)
                                accumulator.record(d, word: mark, contribution: contribution, missing: 0)
                            }
                            continue
                        }
                        for match in matches where match.terms.contains(views.position(of: term, in: match.view)) {
                            if match.excludedPosition >= 0, termLength(term) > match.excludedPosition,
                                unit(term, match.excludedPosition) == match.excludedUnit
                            {
                                continue
                            }
                            let exact = !word.isPrefix || termLength(term) == match.exactLength
                            let contribution = RankKey.contribution(typos: match.typos, prefix: !exact, alternate: entry & Self.inNameFlag == 0)
                            accumulator.record(d, word: mark, contribution: contribution, missing: 0)
                        }
                    }
                }
            }
        }
    }

    /// Several words: a document is an exact match when all words matched equal terms and one of
    /// its names is exactly the query; its key is then made final (`RankKey.final`) in the same
    /// pass, in place (the accumulator is done with).
    private func finishSeveralWords(_ words: [QueryWord], accumulator: inout Accumulator) {
        let hash = NameHash.hash(words.map(\.units))
        let field: UInt64 = 0xF << RankKey.prefixShift
        let severalWords = ranking.severalWords, typoSteps = ranking.typoSteps  // one retain, not one a document
        rankOffsets.withUnsafeBufferPointer { offsets in
            for d in accumulator.touched {
                let doc = Int(d)
                let key = accumulator.key[doc]
                let exact = key & (0xF << RankKey.missingShift | field) == 0 && document(doc, hasNameHash: hash)
                let marked = key & ~field | (exact ? 0 : 1 << RankKey.prefixShift)
                accumulator.key[doc] = RankKey.final(marked, offset: offsets[doc], severalWords: severalWords, typoSteps: typoSteps)
            }
        }
    }

    /// The `need` smallest keys of the touched documents, ascending (a bounded max-heap); with one
    /// word made final first (in place: the accumulator is done with), with several already final.
    private func smallestKeys(need: Int, oneWord: Bool, accumulator: Accumulator, scratch: SearchScratch) -> [UInt64] {
        let touched = accumulator.touched
        if need == 0 { return [] }
        if oneWord {
            // One word: the penalty is in place, adding the offset makes the key final.
            rankOffsets.withUnsafeBufferPointer { offsets in
                for d in touched { accumulator.key[Int(d)] &+= offsets[Int(d)] }
            }
        }
        if touched.count <= need * 4 {
            var keys = touched.map { accumulator.key[Int($0)] }
            keys.sort()
            return Array(keys.prefix(need))
        }
        var heap = scratch.heap
        scratch.heap = []
        heap.removeAll(keepingCapacity: true)
        for d in touched {
            let key = accumulator.key[Int(d)]
            if heap.count < need {
                heap.append(key)
                var child = heap.count - 1
                while child > 0 {
                    let parent = (child - 1) / 2
                    if heap[parent] >= heap[child] { break }
                    heap.swapAt(parent, child)
                    child = parent
                }
            } else if key < heap[0] {
                heap[0] = key
                var parent = 0
                while true {
                    let left = 2 * parent + 1, right = left + 1
                    var largest = parent
                    if left < need, heap[left] > heap[largest] { largest = left }
                    if right < need, heap[right] > heap[largest] { largest = right }
                    if largest == parent { break }
                    heap.swapAt(parent, largest)
                    parent = largest
                }
            }
        }
        let result = heap.sorted()
        scratch.heap = heap
        return result
    }
}
