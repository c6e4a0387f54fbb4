import Base
import Foundation
import Testing

@testable import Search

/// A write merges its run into the delta, and two middle layers merge, from the cores'
/// structures (`IndexCore.merging`): the cores are the ones building their documents makes, and
/// an index whose layers were made that way answers every query as one whose layers were built
/// from scratch (issue 27 part 4).
@Suite struct AppendedDeltaTests {
    /// `IndexCoreReindexTests.same`, and the term views and ranks too.
    static func same(_ a: IndexCore, _ b: IndexCore) -> Bool {
        IndexCoreReindexTests.same(a, b) && a.ranks == b.ranks && a.views.tailOrder == b.views.tailOrder
            && a.views.tailRank == b.views.tailRank && a.views.tailKeys == b.views.tailKeys
            && a.views.tailLengths == b.views.tailLengths && a.views.skipOrder == b.views.skipOrder
            && a.views.skipRank == b.views.skipRank && a.views.skipKeys == b.views.skipKeys
            && a.views.skipLengths == b.views.skipLengths && a.heavy.keys.isEmpty && a.heavy.initials.isEmpty
    }

    /// Cities, some given few ranks so that many tie, with words the others share.
    static func documents(_ range: Range<Int>, suffix: String, random: inout SplitMix64) -> [Document] {
        Cities.documents[range].map { city in
            var document = city
            document.id = "\(city.id)\(suffix)"  // the two cores' ids interleave
            if random.next() % 3 == 0 { document.rank = Double(random.next() % 4) }
            if random.next() % 5 == 0 { document.alternateNames.append(["Saint Étienne", "new", "東京 タワー", "xondon"][Int(random.next() % 4)]) }
            return document
        }
    }

    @Test func aMergeOfTwoCoresIsTheCoreTheirDocumentsBuild() async {
        let failures = await offThePool { Self.mergeFailures() }
        #expect(failures.isEmpty, "\(failures.count) failures, first \(failures.prefix(3))")
    }

    /// What `aMergeOfTwoCoresIsTheCoreTheirDocumentsBuild` finds wrong.
    static func mergeFailures() -> [String] {
        var failures: [String] = []
        var random = SplitMix64(seed: 27)
        let ranking = RankingRules.Levels(.default)
        let none = HeavyPrefixes.Policy(maxUnits: 0)
        for round in 0..<40 {
            let (olderCount, newerCount) = (Int(random.next() % 60), Int(random.next() % 60))
            let start = Int(random.next() % 2_000)
            let olderDocuments = Self.documents(start..<start + olderCount, suffix: "a", random: &random)
            // The newer core shares some of the older's cities (other ids) so that terms meet.
            let newerStart = round % 3 == 0 ? start + olderCount / 2 : Int(random.next() % 2_000)
            let newerDocuments = Self.documents(newerStart..<newerStart + newerCount, suffix: "b", random: &random)
            for equalRanks in [IndexCore.EqualRanks.olderFirst, .byID] {
                let (older, newer) = equalRanks == .byID
                    ? (Snapshot.deltaCore(olderDocuments, ranking: ranking), Snapshot.deltaCore(newerDocuments, ranking: ranking))
                    : (IndexCore.build(olderDocuments, heavyPolicy: none, ranking: ranking),
                        IndexCore.build(newerDocuments, heavyPolicy: none, ranking: ranking))
                // Some of each left out, as tombstones or a run's replacements do (sometimes all).
                let keepOlder = random.next() % 8, keepNewer = random.next() % 8
                let olderNumbers = (0..<older.count).filter { _ in random.next() % 8 >= keepOlder / 2 }
                let newerNumbers = (0..<newer.count).filter { _ in keepNewer == 0 || random.next() % 8 != 0 }
                let merged = IndexCore.merging((older, olderNumbers), (newer, newerNumbers), equalRanks: equalRanks)
                let documents = olderNumbers.map { older.documents[$0] } + newerNumbers.map { newer.documents[$0] }
                let built = equalRanks == .byID
                    ? Snapshot.deltaCore(documents, ranking: ranking)
                    : IndexCore.build(reindexing: [(older, olderNumbers), (newer, newerNumbers)], heavyPolicy: none, ranking: ranking)
                if !Self.same(merged, built) { failures.append("round \(round), \(equalRanks)") }
                if equalRanks == .olderFirst, !Self.same(merged, IndexCore.build(documents, heavyPolicy: none, ranking: ranking)) {
                    failures.append("round \(round): not the tokenized build")
                }
            }
        }
        return failures
    }

    /// Randomized runs of upserts (new cities, replacements of pending, middle and base documents)
    /// and deletes through every layer: after each run, every layer's core is the one building its
    /// documents from scratch makes, and the index answers a set of queries (prefixes, whole words,
    /// typos, several words, country and rank filters, pages) byte for byte as the same layers
    /// built from scratch do: the same hits in the same order, highlights, totals.
    @Test(arguments: [UInt64(1), 2, 3]) func anIndexOfAppendedRunsAnswersAsOneBuiltFromScratch(seed: UInt64) async {
        let failures = await offThePool { Self.appendedRunFailures(seed: seed) }
        #expect(failures.isEmpty, "\(failures.count) failures, first \(failures.prefix(3))")
    }

    /// What `anIndexOfAppendedRunsAnswersAsOneBuiltFromScratch` finds wrong with `seed`'s runs.
    static func appendedRunFailures(seed: UInt64) -> [String] {
        var failures: [String] = []
        func check(_ condition: Bool, _ what: @autoclosure () -> String) { if !condition { failures.append(what()) } }
        var random = SplitMix64(seed: seed)
        var configuration = SearchIndex.Configuration()
        configuration.maxPendingChanges = 12
        configuration.maxMiddleDocuments = 300
        configuration.maxBaseTombstones = 60
        let pool = Self.documents(0..<3_000, suffix: "", random: &random)
        let index = SearchIndex(documents: Array(pool[0..<500]), configuration: configuration)
        var live = Set(pool[0..<500].map(\.id))
        func anyLive() -> String? { live.sorted().randomElement(using: &random) }  // sorted: a set's order varies by process
        let queries = Self.queries(pool[0..<1_500])
        var next = 500
        for run in 0..<90 {
            var changes: [(id: String, document: Document?)] = []
            for _ in 0..<(1 + Int(random.next() % 6)) {
                switch random.next() % 6 {
                case 0, 1:  // a new city
                    changes.append((pool[next].id, pool[next]))
                    next += 1
                case 2, 3:  // a city replaced with another's names and rank, wherever it is
                    guard let id = anyLive() else { continue }
                    var replacement = pool[Int(random.next() % 3_000)]
                    replacement.id = id
                    changes.append((id, replacement))
                case 4:  // a city deleted
                    guard let id = anyLive() else { continue }
                    changes.append((id, nil))
                default:  // a city replaced twice in the run, then maybe deleted
                    guard let id = anyLive() else { continue }
                    changes.append((id, Document(id: id, name: "Twice \(run)", rank: 2)))
                    changes.append((id, random.next() % 2 == 0 ? nil : Document(id: id, name: "Thrice \(id)", rank: 2)))
                }
                if let last = changes.last {
                    if last.document == nil { live.remove(last.id) } else { live.insert(last.id) }
                }
            }
            index.apply(changes)
            let snapshot = index.snapshot
            let scratch = Self.builtFromScratch(snapshot)
            check(Self.same(snapshot.delta, scratch.delta), "run \(run): delta")
            for (layer, middle) in snapshot.middles.enumerated() {
                check(Self.same(middle.core, scratch.middles[layer].core), "run \(run): middle \(layer)")
            }
            check(snapshot.count == live.count, "run \(run): count")
            // All queries every 30th run, a random 24th of them after the others (a debug build's
            // searches are slow, and this runs beside the rest of the suite).
            let asked = run % 30 == 29 ? queries : queries.filter({ _ in random.next() % 24 == 0 })
            for query in asked {
                let (found, wanted) = (index.search(query, in: snapshot), index.search(query, in: scratch))
                check(found == wanted, "run \(run): \(query.text): \(found.hits.map(\.document.id)) against \(wanted.hits.map(\.document.id))")
            }
        }
        check(!index.snapshot.middles.isEmpty || index.snapshot.delta.count > 0, "nothing left in the layers")
        return failures
    }

    /// `snapshot` with its middle layers' and delta's cores built from their documents (in their
    /// order), the same documents hidden.
    static func builtFromScratch(_ snapshot: Snapshot) -> Snapshot {
        let none = HeavyPrefixes.Policy(maxUnits: 0)
        let middles = snapshot.middles.map { layer in
            var built = IndexLayer(IndexCore.build(layer.core.documents, heavyPolicy: none, ranking: snapshot.ranking))
            for number in layer.tombstoneList { _ = built.hide(layer.core.documents[Int(number)].id) }
            return built
        }
        return Snapshot(
            base: snapshot.base, middles: middles, pending: snapshot.pending,
            delta: Snapshot.deltaCore(Array(snapshot.pending.values), ranking: snapshot.ranking), version: snapshot.version)
    }

    /// Queries on these cities' names: prefixes, whole words, a typo, two words, with filters and pages.
    static func queries(_ documents: ArraySlice<Document>) -> [SearchQuery] {
        var texts = ["s", "sa", "new", "new y", "saint e", "東京", "xondon", "londn", "twice", "thrice", "a b", "berln", "mosc"]
        for document in documents.prefix(120) {
            let words = document.name.split(separator: " ")
            texts.append(String(document.name.prefix(3)))
            texts.append(document.name)
            if let first = words.first, first.count > 4 {
                texts.append(String(first.dropFirst()))  // a missing first letter
                texts.append(String(first.prefix(2)) + String(first.dropFirst(3)))  // a missing third letter
            }
            if words.count > 1 { texts.append("\(words[0]) \(words[1].prefix(2))") }
        }
        return texts.flatMap { text in
            [SearchQuery(text, limit: 20), SearchQuery(text, limit: 5, offset: 3), SearchQuery(text, limit: 10, countries: ["US", "DE"]),
             SearchQuery(text, limit: 10, minRank: 10_000)]
        }
    }
}
