import Testing

@testable import Search

@Suite struct RankingTests {
    private func city(_ id: String, _ name: String, _ alternates: [String] = [], rank: Double) -> Document {
        Document(id: id, name: name, alternateNames: alternates, rank: rank, attributes: ["countryCode": "XX"])
    }

    private func ids(_ text: String, _ documents: [Document]) -> [String] {
        SearchIndex(documents: documents).search(SearchQuery(text)).hits.map(\.document.id)
    }

    @Test func aPrefixOutranksAnExactNameOnlyBeyondItsFactor() {
        // startOfName is 8: York keeps first place against a prefix match 5 times its rank...
        #expect(ids("york", [city("1", "York", rank: 100), city("2", "Yorkton", rank: 500)]) == ["1", "2"])
        // ...and loses it to one 20 times its rank ("mosc" finds Moscow, not a hamlet named Mosc).
        #expect(ids("york", [city("1", "York", rank: 100), city("2", "Yorkshire", rank: 2_000)]) == ["2", "1"])
    }

    @Test func aWholeAlternateNameCostsItsFactor() {
        // alternateName is 40: the main name wins against 20 times the rank, not against 100 times.
        #expect(ids("lima", [city("1", "Lima", rank: 1_000), city("2", "Somewhere", ["Lima"], rank: 20_000)]) == ["1", "2"])
        #expect(ids("canton", [city("1", "Canton", rank: 1_000), city("2", "Guangzhou", ["Canton"], rank: 100_000)]) == ["2", "1"])
    }

    @Test func aLaterWordOfANameCostsMoreThanItsStart() {
        // "york" is a later word of "New York City" (laterWordOfName 64) but starts "Yorkville" (8).
        let documents = [city("1", "York", rank: 10_000), city("2", "New York City", rank: 300_000), city("3", "Yorkville", rank: 300_000)]
        #expect(ids("york", documents) == ["3", "1", "2"])
    }

    @Test func thePrefixOfAnAlternateNameSaysLittle() {
        // startOfAlternateName is 1,024: an old name that merely starts with the text does not win.
        let documents = [city("1", "Nice", rank: 340_000), city("2", "Raqqa", ["Nicephorium"], rank: 530_000)]
        #expect(ids("nice", documents) == ["1", "2"])
        #expect(ids("niceph", documents) == ["2"])
    }

    @Test func severalWordsFollowTheSameFactors() {
        // Both words in one main name beat both found in a big city's alternate names.
        let documents = [
            city("1", "Thanh Hoa", rank: 400_000),
            city("2", "Ho Chi Minh City", ["Thanh pho Ho Chi Minh"], rank: 9_000_000),
        ]
        #expect(ids("thanh h", documents) == ["1", "2"])
        // A whole alternate name of several words is an exonym like one of one word.
        #expect(ids("thanh pho ho chi minh", documents).first == "2")
    }

    @Test func aTypoCostsItsFactor() {
        // typo is 256: a place named exactly what was typed keeps first place against a city with
        // a typo 100 times its rank, and loses it to one 1,000 times its rank ("lindon": London).
        #expect(ids("lindon ", [city("1", "Lindon", rank: 10_000), city("2", "London", rank: 1_000_000)]) == ["1", "2"])
        #expect(ids("lindon ", [city("1", "Lindon", rank: 10_000), city("2", "London", rank: 10_000_000)]) == ["2", "1"])
        // Two typos cost the factor twice (65,536).
        #expect(ids("barzelonxa ", [city("1", "Barzelonxa", rank: 10), city("2", "Barcelona", rank: 100_000)]) == ["1", "2"])
        #expect(ids("barzelonxa ", [city("1", "Barzelonxa", rank: 10), city("2", "Barcelona", rank: 10_000_000)]) == ["2", "1"])
        // The typos are still reported.
        let hits = SearchIndex(documents: [city("1", "Lindon", rank: 10), city("2", "London", rank: 10_000_000)]).search(SearchQuery("lindon ")).hits
        #expect(hits.map(\.typos) == [1, 0])
        // Several words: the typos of all words count.
        #expect(ids("santa harta", [city("1", "Santa Harta", rank: 10), city("2", "Santa Marta", rank: 500_000)]) == ["2", "1"])
    }

    @Test func aCityWithATypoEntersAFullPageWhenItsRankOutweighsIt() {
        // Twelve places named exactly "Nakara" fill a page of ten without typos; Ankara (a swap of
        // the first two letters, an early typo) still comes first, on every page size.
        var documents = (1...12).map { city("n\($0)", "Nakara", rank: Double(100 + $0)) }
        documents.append(city("ankara", "Ankara", rank: 3_500_000))
        let index = SearchIndex(documents: documents)
        for limit in [1, 5, 10, 13] {
            #expect(index.search(SearchQuery("nakara", limit: limit)).hits.first?.document.id == "ankara", "limit \(limit)")
        }
        // A typo after the first letter (the walk as typed) the same.
        var london = (1...12).map { city("l\($0)", "Lindon", rank: Double(100 + $0)) }
        london.append(city("london", "London", rank: 9_000_000))
        #expect(SearchIndex(documents: london).search(SearchQuery("lindon", limit: 3)).hits.first?.document.id == "london")
    }

    @Test func theEmbeddedCitiesFollowTheRules() {
        #expect(Cities.top("mosc")?.document.name == "Moscow")
        #expect(Cities.top("pari")?.document.name == "Paris")
        #expect(Cities.top("canton")?.document.name == "Guangzhou")
        #expect(Cities.top("constantinople")?.document.name == "Istanbul")
        #expect(Cities.top("york")?.document.name == "York")
        #expect(Cities.top("nice")?.document.name == "Nice")
        #expect(Cities.top("bath")?.document.name == "Bath")
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
