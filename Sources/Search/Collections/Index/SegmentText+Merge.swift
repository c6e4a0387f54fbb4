extension SegmentText {
    /// The inverted index of the merged documents (``SegmentMerge``) from the parts' own: their
    /// terms that a carried document holds, in one dictionary, and their postings renumbered.
    /// What `init(_:layout:)` builds from the same documents, with no text tokenized again.
    init(merging parts: [SegmentText], _ merge: SegmentMerge) {
        // 1. Per part, each term's global id (`dropped` when no carried document holds it) and
        //    its count of carried postings.
        var interner = TermInterner(expectedTerms: parts.reduce(0) { $0 + $1.dictionary.termCount })
        var termIDs: [[UInt32]] = []
        var liveCounts: [[Int]] = []
        for (p, part) in parts.enumerated() {
            let numbers = merge.numbers[p], dictionary = part.dictionary
            var ids = [UInt32](repeating: SegmentMerge.dropped, count: dictionary.termCount)
            var counts = [Int](repeating: 0, count: dictionary.termCount)
            for t in 0..<dictionary.termCount {
                var live = 0
                for i in part.postingStarts[t]..<part.postingStarts[t + 1]
                where numbers[Int(part.postings[i] & Self.documentMask)] != SegmentMerge.dropped {
                    live += 1
                }
                guard live > 0 else { continue }
                ids[t] = interner.intern(dictionary.termUnits[Int(dictionary.termStarts[t])..<Int(dictionary.termStarts[t + 1])])
                counts[t] = live
            }
            termIDs.append(ids)
            liveCounts.append(counts)
        }
        let (dictionary, renumber) = TermDictionary.sorting(interner)
        self.dictionary = dictionary
        // 2. Postings placed by counting sort over the new term numbers.
        let termCount = dictionary.termCount
        var starts = [Int](repeating: 0, count: termCount + 1)
        for p in parts.indices {
            for (t, id) in termIDs[p].enumerated() where id != SegmentMerge.dropped {
                starts[Int(renumber[Int(id)]) + 1] += liveCounts[p][t]
            }
        }
        for t in 0..<termCount { starts[t + 1] += starts[t] }
        var fill = starts
        var postings = [UInt32](repeating: 0, count: starts[termCount])
        for (p, part) in parts.enumerated() {
            let numbers = merge.numbers[p]
            for (t, id) in termIDs[p].enumerated() where id != SegmentMerge.dropped {
                let term = Int(renumber[Int(id)])
                for i in part.postingStarts[t]..<part.postingStarts[t + 1] {
                    let posting = part.postings[i]
                    let n = numbers[Int(posting & Self.documentMask)]
                    guard n != SegmentMerge.dropped else { continue }
                    postings[fill[term]] = n | posting & ~Self.documentMask  // the weight kept
                    fill[term] += 1
                }
            }
        }
        // 3. Each part's run of a list is ascending (a merge keeps each part's order), but the
        //    runs of several parts interleave: those lists are sorted.
        for t in 0..<termCount {
            let range = starts[t]..<starts[t + 1]
            var sorted = true
            for i in range.dropFirst() where postings[i - 1] & Self.documentMask > postings[i] & Self.documentMask {
                sorted = false
                break
            }
            if !sorted { postings[range].sort { $0 & Self.documentMask < $1 & Self.documentMask } }
        }
        self.postings = postings
        postingStarts = starts
    }
}
