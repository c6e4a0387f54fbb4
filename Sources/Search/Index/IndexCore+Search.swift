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
        scratch.begin(documents: count)
        let generation = scratch.generation
        let wordCount = UInt64(words.count)
        let limit = UInt32(filter.documentLimit)
        let checkTombstones = !filter.tombstoneList.isEmpty

        for (index, word) in words.enumerated() {
            scratch.matches.removeAll(keepingCapacity: true)
            if word.typoBudget == 0 {
                if word.isPrefix {
                    let range = prefixRange(word.units)
                    if !range.isEmpty {
                        let exact = termLength(range.lowerBound) == word.units.count ? range.lowerBound : -1
                        scratch.matches.append(TermMatch(terms: range, typos: 0, exactTerm: exact))
                    }
                } else if let term = exactTerm(word.units) {
                    scratch.matches.append(TermMatch(terms: term..<term + 1, typos: 0, exactTerm: term))
                }
            } else {
                collectTypoMatches(word, scratch: scratch)
            }
            let mark = UInt8(index + 1)
            for match in scratch.matches {
                for term in match.terms {
                    // One word: exact means the term is a whole name (the flag); several words: the
                    // term equals the word here, and the whole query must be a name (checked below).
                    let equal = !word.isPrefix || term == match.exactTerm
                    let typos = RankKey.contribution(typos: match.typos, prefix: false, alternate: false)
                    for i in Int(postingStarts[term])..<Int(postingStarts[term + 1]) {
                        let posting = postings[i]
                        let d = posting & Self.docMask
                        if d >= limit { break }
                        let doc = Int(d)
                        let exact = equal && (words.count > 1 || posting & Self.wholeNameFlag != 0)
                        let contribution = typos | (exact ? 0 : 1 << RankKey.prefixShift)
                            | (posting & Self.inNameFlag != 0 ? 0 : 1 << RankKey.alternateShift)
                        if index == 0 {
                            if scratch.stamp[doc] != generation {
                                if let mask = filter.countryMask {
                                    let country = countries[doc]
                                    if country == CountryCode.none || !mask[Int(country)] { continue }
                                }
                                if checkTombstones, filter.tombstones[doc >> 6] & (1 << UInt64(doc & 63)) != 0 { continue }
                                scratch.stamp[doc] = generation
                                scratch.key[doc] = (wordCount - 1) << RankKey.missingShift | contribution | UInt64(d)
                                scratch.wordContribution[doc] = contribution
                                scratch.wordMark[doc] = mark
                                scratch.touched.append(d)
                            } else if contribution < scratch.wordContribution[doc] {
                                scratch.key[doc] = scratch.key[doc] - scratch.wordContribution[doc] + contribution
                                scratch.wordContribution[doc] = contribution
                            }
                        } else {
                            guard scratch.stamp[doc] == generation else { continue }
                            if scratch.wordMark[doc] != mark {
                                scratch.wordMark[doc] = mark
                                scratch.key[doc] = scratch.key[doc] - (1 << RankKey.missingShift) + contribution
                                scratch.wordContribution[doc] = contribution
                            } else if contribution < scratch.wordContribution[doc] {
                                scratch.key[doc] = scratch.key[doc] - scratch.wordContribution[doc] + contribution
                                scratch.wordContribution[doc] = contribution
                            }
                        }
                    }
                }
            }
            if index == 0, scratch.touched.isEmpty { return CoreHits(keys: [], total: 0) }
        }
        if words.count > 1 { markExactNames(words, scratch: scratch) }
        return CoreHits(keys: smallestKeys(need: need, scratch: scratch), total: scratch.touched.count)
    }

    /// Several words: a document is an exact match when all words matched equal terms and one of
    /// its names is exactly the query; the prefix field becomes 0 (exact) or 1.
    private func markExactNames(_ words: [QueryWord], scratch: SearchScratch) {
        let hash = NameHash.hash(words.map(\.units))
        let field: UInt64 = 0xF << RankKey.prefixShift
        for d in scratch.touched {
            let doc = Int(d)
            let key = scratch.key[doc]
            let exact = key & (0xF << RankKey.missingShift | field) == 0 && document(doc, hasNameHash: hash)
            scratch.key[doc] = key & ~field | (exact ? 0 : 1 << RankKey.prefixShift)
        }
    }

    /// The `need` smallest keys of the touched documents, ascending (a bounded max-heap).
    private func smallestKeys(need: Int, scratch: SearchScratch) -> [UInt64] {
        let touched = scratch.touched
        if need == 0 { return [] }
        if touched.count <= need * 4 {
            var keys = touched.map { scratch.key[Int($0)] }
            keys.sort()
            return Array(keys.prefix(need))
        }
        var heap = scratch.heap
        scratch.heap = []
        heap.removeAll(keepingCapacity: true)
        for d in touched {
            let key = scratch.key[Int(d)]
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
