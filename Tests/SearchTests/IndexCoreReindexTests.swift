import Testing

@testable import Search

/// A core built from the terms other cores hold (a merge of layers, a rebuild of the base) is
/// the core that tokenizing the same documents builds, array for array.
@Suite struct IndexCoreReindexTests {
    static func same(_ a: IndexCore, _ b: IndexCore) -> Bool {
        a.documents == b.documents && a.termUnits == b.termUnits && a.termStarts == b.termStarts && a.termKeys == b.termKeys
            && a.runEnds == b.runEnds && a.postings == b.postings && a.postingStarts == b.postingStarts
            && a.docTermStarts == b.docTermStarts && documentTerms(a) == documentTerms(b) && a.nameHashes == b.nameHashes
            && a.nameHashStarts == b.nameHashStarts && a.rankOffsets == b.rankOffsets && a.countries == b.countries
    }

    /// Each document's terms with their flags, in term order (a core keeps them in the order it
    /// first met them, which the searches do not depend on).
    static func documentTerms(_ core: IndexCore) -> [[UInt32]] {
        (0..<core.count).map { d in core.docTerms[Int(core.docTermStarts[d])..<Int(core.docTermStarts[d + 1])].sorted() }
    }

    @Test func aCoreFromOtherCoresTermsIsTheTokenizedOne() {
        // Cities with alternate names in many scripts, repeated words and names of several words.
        let cities = Array(Cities.documents.prefix(3_000))
        let extra = [
            Document(id: "x1", name: "New York New", alternateNames: ["Big Apple", "new", "NYC"], rank: 5),
            Document(id: "x2", name: "Saint-Étienne", alternateNames: ["Sankt Etienne", "東京 タワー"], rank: 5),
        ]
        let ranking = RankingRules.Levels(.default)
        let none = HeavyPrefixes.Policy(maxUnits: 0)
        let older = IndexCore.build(Array(cities[0..<1_200]) + extra, heavyPolicy: none, ranking: ranking)
        let newer = IndexCore.build(Array(cities[1_200..<3_000]), heavyPolicy: none, ranking: ranking)
        // Some of each left out, as tombstones would.
        let olderNumbers = (0..<older.count).filter { $0 % 5 != 1 }, newerNumbers = (0..<newer.count).filter { $0 % 7 != 3 }
        let documents = olderNumbers.map { older.documents[$0] } + newerNumbers.map { newer.documents[$0] }
        for policy in [none, HeavyPrefixes.Policy(maxUnits: 4, minPostings: 50)] {
            let reindexed = IndexCore.build(reindexing: [(older, olderNumbers), (newer, newerNumbers)], heavyPolicy: policy, ranking: ranking)
            let tokenized = IndexCore.build(documents, heavyPolicy: policy, ranking: ranking)
            #expect(Self.same(reindexed, tokenized))
            #expect(reindexed.heavy.keys == tokenized.heavy.keys && reindexed.heavy.entries.count == tokenized.heavy.entries.count)
        }
    }

    /// A write's delta takes the documents the previous delta held from it and tokenizes only the
    /// write's: after each run of upserts, replacements and deletes, it is the delta that
    /// tokenizing all the pending documents builds.
    @Test func aDeltaFromThePreviousDeltaIsTheTokenizedOne() {
        let cities = Array(Cities.documents.prefix(400))
        let ranking = RankingRules.Levels(.default)
        var snapshot = Snapshot(documents: Array(cities[0..<100]), policy: HeavyPrefixes.Policy(maxUnits: 0), ranking: ranking, version: 0)
        var next = 100, run = 0
        while next < cities.count, run < 60 {
            var changes: [(id: String, document: Document?)] = []
            for k in 0..<(1 + run % 4) where next < cities.count {
                let pendingIDs = snapshot.pending.keys.sorted()
                if run % 5 == 3, k == 0, let id = pendingIDs.first {
                    changes.append((id, nil))  // a delete of a pending document
                } else if run % 3 == 1, k == 0, let id = pendingIDs.last {
                    var replaced = cities[next]  // a pending document replaced
                    replaced.id = id
                    changes.append((id, replaced))
                    next += 1
                } else if run % 7 == 2, k == 0 {
                    changes.append((cities[run].id, cities[run + 1]))  // a base document replaced, with other names
                    changes[changes.count - 1].document?.id = cities[run].id
                } else {
                    changes.append((cities[next].id, cities[next]))
                    next += 1
                }
            }
            guard let applied = snapshot.applying(changes) else { continue }
            snapshot = applied
            if snapshot.pending.count > 12 { snapshot = snapshot.mergingDelta() }
            run += 1
            #expect(Self.same(snapshot.delta, Snapshot.deltaCore(Array(snapshot.pending.values), ranking: ranking)))
        }
        #expect(run == 60)
    }
}
