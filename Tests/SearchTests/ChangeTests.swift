import Testing

@testable import Search

@Suite struct ChangeTests {
    private func city(_ id: String, _ name: String, rank: Double = 1) -> Document {
        Document(id: id, name: name, rank: rank, attributes: ["countryCode": "NL"])
    }

    @Test func upsertAndDeleteAreVisibleToTheNextQuery() {
        let index = SearchIndex(documents: [city("1", "Amsterdam", rank: 100), city("2", "Rotterdam", rank: 50)])
        #expect(index.version == 0)
        index.upsert(city("3", "Amstelveen", rank: 200))
        #expect(index.version == 1)
        #expect(index.search(SearchQuery("amst")).hits.map(\.document.id) == ["3", "1"])
        index.upsert(city("1", "Zaandam", rank: 100))  // replace
        #expect(index.search(SearchQuery("amst")).hits.map(\.document.id) == ["3"])
        #expect(index.search(SearchQuery("zaan")).hits.map(\.document.id) == ["1"])
        #expect(index.delete(id: "3")?.name == "Amstelveen")
        #expect(index.delete(id: "3") == nil)
        #expect(index.delete(id: "unknown") == nil)
        #expect(index.search(SearchQuery("amst")).total == 0)
        #expect(index.count == 2)
        #expect(index.document(id: "1")?.name == "Zaandam")
        #expect(index.version == 3)
    }

    /// A batch (issue 27: a replica applies the changes that arrive together as one write) ends
    /// where the same changes made one by one end: documents, searches, count and version.
    @Test func aBatchOfChangesEndsWhereTheSameChangesOneByOneEnd() {
        let base = (0..<8).map { city("\($0)", "Town \($0)", rank: Double($0)) }
        let changes: [(id: String, document: Document?)] = [
            ("8", city("8", "Townsend", rank: 8)), ("2", nil), ("3", city("3", "Village 3", rank: 3)),
            ("8", city("8", "Townley", rank: 9)), ("unknown", nil), ("5", nil), ("5", nil), ("9", city("9", "Town 9")),
            ("9", nil),
        ]
        for pending in [1_024, 2] {  // also across a rebuild of the base
            var configuration = SearchIndex.Configuration()
            configuration.maxPendingChanges = pending
            let batched = SearchIndex(documents: base, configuration: configuration)
            let single = SearchIndex(documents: base, configuration: configuration)
            batched.apply(changes)
            for (id, document) in changes {
                if let document { single.upsert(document) } else { single.delete(id: id) }
            }
            #expect(batched.version == single.version && batched.version == 7)
            #expect(batched.count == single.count && batched.count == 7)
            for text in ["town", "vill", "towns", "townl"] {
                let query = SearchQuery(text, limit: 100)
                #expect(batched.search(query).hits.map(\.document.id) == single.search(query).hits.map(\.document.id), "\(text)")
            }
            #expect(batched.document(id: "8")?.name == "Townley" && batched.document(id: "5") == nil)
            batched.apply([("unknown", nil)])
            #expect(batched.version == 7)
        }
    }

    @Test func changesOnTheBigIndexKeepPrecomputedPrefixesRight() {
        let index = SearchIndex(documents: Array(Cities.documents.prefix(5_000)))
        let before = index.search(SearchQuery("s", limit: 5))
        let first = try! #require(before.hits.first)
        index.delete(id: first.document.id)
        let after = index.search(SearchQuery("s", limit: 5))
        #expect(after.total == before.total - 1)
        #expect(!after.hits.contains { $0.document.id == first.document.id })
        index.upsert(first.document)
        let again = index.search(SearchQuery("s", limit: 5))
        #expect(again.total == before.total)
        #expect(again.hits.map(\.document.id) == before.hits.map(\.document.id))
    }

    @Test func compactionKeepsEveryDocument() {
        var configuration = SearchIndex.Configuration()
        configuration.maxPendingChanges = 4
        let index = SearchIndex(documents: (0..<10).map { city("\($0)", "Town \($0)") }, configuration: configuration)
        for i in 10..<30 { index.upsert(city("\(i)", "Town \(i)")) }
        for i in 0..<5 { index.delete(id: "\(i)") }
        #expect(index.count == 25)
        #expect(index.search(SearchQuery("town", limit: 100)).total == 25)
        #expect(index.version == 25)
    }

    /// Issue 27: a stream of writes moves through the delta, the middle layers (merged two by two
    /// as they grow: with room for 40 documents, up to four of them) and a base rebuild; at every
    /// step, searches find what an index built afresh from the same documents finds.
    @Test(arguments: [10, 40]) func changesThroughEveryLayerFindWhatAFreshIndexFinds(maxMiddle: Int) {
        var configuration = SearchIndex.Configuration()
        configuration.maxPendingChanges = 3
        configuration.maxMiddleDocuments = maxMiddle
        configuration.maxBaseTombstones = 4
        let start = (0..<20).map { city("\($0)", "Town \($0)", rank: Double($0 % 7)) }
        let index = SearchIndex(documents: start, configuration: configuration)
        var expected = Dictionary(uniqueKeysWithValues: start.map { ($0.id, $0) })
        for step in 0..<60 {
            let id = "\((step * 7) % 31)"
            if step % 5 == 4 {
                index.apply([(id: id, document: nil)])
                expected[id] = nil
            } else {
                let document = city(id, step % 2 == 0 ? "Town \(id) v\(step)" : "Village \(id)", rank: Double(step % 9))
                index.apply([(id: id, document: document)])
                expected[id] = document
            }
            let fresh = SearchIndex(documents: Array(expected.values))
            #expect(index.count == expected.count, "step \(step)")
            for text in ["town", "vill", "t", "v", "town 1"] {
                let query = SearchQuery(text, limit: 100)
                let (found, wanted) = (index.search(query), fresh.search(query))
                #expect(found.total == wanted.total, "step \(step), \(text)")
                #expect(Set(found.hits.map(\.document.id)) == Set(wanted.hits.map(\.document.id)), "step \(step), \(text)")
                #expect(found.hits.map(\.document.rank) == wanted.hits.map(\.document.rank), "step \(step), \(text): rank order")
            }
            #expect(index.document(id: id) == expected[id])
        }
    }

    @Test func matchesTellsWhichQueriesAChangeAffects() {
        let document = city("1", "Amsterdam")
        #expect(SearchQuery("amst").matches(document))
        #expect(SearchQuery("amsterdma").matches(document))
        #expect(!SearchQuery("rotter").matches(document))
        #expect(!SearchQuery("amst", countries: ["BE"]).matches(document))
        #expect(SearchQuery("amst", minRank: 1).matches(document))
        #expect(!SearchQuery("amst", minRank: 2).matches(document))
    }

    @Test func aQueryMatcherAgreesWithTheIndexOnWhatAQueryFinds() {
        // The index's rule (every word matches) is stricter than the matcher's (the first word):
        // whatever a query finds, its matcher must accept, or a write would leave a stale result.
        let names = ["Amsterdam", "Amstelveen", "Rotterdam", "Den Haag", "São Paulo", "Sao Tome", "Zürich",
                     "Zurich North", "Paris", "Parijs", "Pärnu", "Łódź", "Lodz East", "Köln", "Cologne"]
        let documents = names.enumerated().map { city("\($0.offset)", $0.element, rank: Double($0.offset)) }
        let index = SearchIndex(documents: documents)
        let queries = ["am", "amst", "amsterdma", "rotter dam", "sao", "são p", "zur", "zurich n", "pari", "par",
                       "lodz", "łó", "koln", "cologne", "den h", "xyz", "paulo sao"]
        for text in queries {
            let query = SearchQuery(text, limit: SearchQuery.Limits.maxLimit)
            let matcher = QueryMatcher(query)
            let found = Set(index.search(query).hits.map(\.document.id))
            let accepted = Set(documents.filter { matcher.matches(MatchCandidate($0)) }.map(\.id))
            #expect(found.isSubset(of: accepted), "\(text): found \(found), matcher accepts \(accepted)")
            // Alone, the first word stays complete when more followed it (a trailing space says so).
            let firstWord = text.split(separator: " ").first.map(String.init) ?? ""
            let firstWordOnly = SearchQuery(firstWord == text ? text : firstWord + " ", limit: query.limit)
            let foundByFirstWord = Set(index.search(firstWordOnly).hits.map(\.document.id))
            #expect(accepted == foundByFirstWord, "\(text): matcher \(accepted), first word finds \(foundByFirstWord)")
        }
    }

    @Test func concurrentReadersAndWriters() async {
        let index = SearchIndex(documents: (0..<200).map { city("\($0)", "Town \($0)") })
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    for i in 0..<100 { index.upsert(city("w\(writer)-\(i)", "Village \(i)")) }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<200 { _ = index.search(SearchQuery("town 1")) }
                }
            }
        }
        #expect(index.count == 400)
        #expect(index.search(SearchQuery("village", limit: 1)).total == 200)
    }
}
