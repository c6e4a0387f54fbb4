import Testing

@testable import Search

@Suite struct FilterTests {
    @Test func countryFilterKeepsOnlyThoseCountries() {
        let result = Cities.index.search(SearchQuery("san", limit: 50, countries: ["ES", "CL"]))
        #expect(!result.hits.isEmpty)
        #expect(result.hits.allSatisfy { ["ES", "CL"].contains($0.document.countryCode) })
        #expect(Cities.top("paris", countries: ["US"])?.document.countryCode == "US")
        #expect(Cities.top("london", countries: ["CA"])?.document.name == "London")
    }

    @Test func minimumRankFilter() {
        let result = Cities.index.search(SearchQuery("san", limit: 100, minRank: 1_000_000))
        #expect(!result.hits.isEmpty)
        #expect(result.hits.allSatisfy { $0.document.rank >= 1_000_000 })
        #expect(result.total == result.hits.count)
    }

    @Test func limitAndOffsetPage() {
        let all = Cities.index.search(SearchQuery("ber", limit: 30))
        let page = Cities.index.search(SearchQuery("ber", limit: 10, offset: 10))
        #expect(page.hits.map(\.document.id) == all.hits[10..<20].map(\.document.id))
        #expect(page.total == all.total)
        #expect(Cities.index.search(SearchQuery("ber", limit: 1000)).hits.count == SearchQuery.Limits.maxLimit)
    }

    @Test func queryValidation() {
        #expect(throws: SearchQueryError.limitOutOfRange(101, max: 100)) { try SearchQuery("x", limit: 101).validate() }
        #expect(throws: SearchQueryError.invalidCountryCode("usa")) { try SearchQuery("x", countries: ["usa"]).validate() }
        #expect(throws: Never.self) { try SearchQuery("x", countries: ["US"]).validate() }
    }

    @Test func normalizedKeyIgnoresCaseAccentsAndCountryOrder() {
        let a = SearchQuery("São  PA", countries: ["US", "BR"])
        let b = SearchQuery("sao pa", countries: ["br", "US"])
        #expect(a.normalizedKey == b.normalizedKey)
        #expect(SearchQuery("sao pa").normalizedKey != SearchQuery("sao pa ").normalizedKey)
        #expect(SearchQuery("sao pa").normalizedKey != SearchQuery("sao pa", limit: 20).normalizedKey)
    }

    @Test func emptyQueryMatchesNothing() {
        #expect(Cities.index.search(SearchQuery("  ")).total == 0)
    }
}
