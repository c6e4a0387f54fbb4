import Testing

@testable import Search

@Suite struct RankingTests {
    private func city(_ id: String, _ name: String, _ alternates: [String] = [], rank: Double) -> Document {
        Document(id: id, name: name, alternateNames: alternates, rank: rank, attributes: ["countryCode": "XX"])
    }

    @Test func orderIsWordsTyposExactNameRank() {
        let index = SearchIndex(documents: [
            city("1", "Yorkton", rank: 900),  // prefix
            city("2", "York", rank: 100),  // exact, name
            city("3", "Big Town", ["York"], rank: 800),  // exact, alternate name only
            city("4", "Yorke Harbour", rank: 1000),  // prefix, bigger
            city("5", "New York", rank: 50),  // "york" as a word, not the whole name
        ])
        let ids = index.search(SearchQuery("york")).hits.map(\.document.id)
        #expect(ids == ["2", "3", "4", "1", "5"])
    }

    @Test func moreWordsMatchedComeFirst() {
        let index = SearchIndex(documents: [
            city("1", "New Haven", rank: 1000),
            city("2", "New York", rank: 10),
            city("3", "York", rank: 5000),  // misses the first word: not a match
            city("4", "Newark", rank: 5000),  // "new" is a finished word here, not a prefix
        ])
        let result = index.search(SearchQuery("new york"))
        #expect(result.hits.map(\.document.id) == ["2", "1"])
        #expect(result.hits.map(\.wordsMatched) == [2, 1])
        #expect(result.total == 2)
    }

    @Test func fewerTyposComeFirst() {
        let index = SearchIndex(documents: [
            city("1", "Barcelona", rank: 10),
            city("2", "Barcelone", rank: 1000),
        ])
        #expect(index.search(SearchQuery("barcelona ")).hits.map(\.document.id) == ["1", "2"])
    }

    @Test func nameBeatsAlternateNameAtEqualExactness() {
        let index = SearchIndex(documents: [
            city("1", "Somewhere", ["Lima"], rank: 1000),
            city("2", "Lima", rank: 10),
        ])
        #expect(index.search(SearchQuery("lima")).hits.map(\.document.id) == ["2", "1"])
    }

    @Test func highlightsMatchedPartsOfTheName() {
        let index = SearchIndex(documents: [city("1", "São Paulo", rank: 1)])
        let hit = index.search(SearchQuery("sao pa")).hits.first
        #expect(hit?.highlight == [[0, 3], [4, 6]])
        let typo = index.search(SearchQuery("paolo")).hits.first
        #expect(typo?.highlight == [[4, 9]])
    }

    @Test func precomputedPrefixesAgreeWithTheGeneralPath() {
        let core = Cities.index
        for prefix in ["s", "sa", "san", "ba", "ch", "м", "mo"] {
            let query = SearchQuery(prefix, limit: 30)
            let fast = core.search(query)
            // A country filter listing every country takes the general path.
            let all = Set(Cities.documents.compactMap(\.countryCode)).sorted()
            let slow = core.search(SearchQuery(prefix, limit: 30, countries: all))
            #expect(fast.hits.map(\.document.id) == slow.hits.map(\.document.id), "\(prefix)")
            #expect(fast.total == slow.total, "\(prefix)")
        }
    }
}
