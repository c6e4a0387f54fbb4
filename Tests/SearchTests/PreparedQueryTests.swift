import Testing

@testable import Search

/// The cache key of a prepared query: normalized words (the last marked as a prefix), page,
/// sorted countries and minimum rank.
@Suite struct PreparedQueryTests {
    @Test func keysSpellTheNormalizedQuery() {
        #expect(PreparedQuery(SearchQuery("São  PA")).key == "sao pa*|l=10|o=0")
        #expect(PreparedQuery(SearchQuery("paris ", limit: 3, offset: 120)).key == "paris|l=3|o=120")
        #expect(PreparedQuery(SearchQuery("x", limit: 100, countries: ["US", "FR"], minRank: 5)).key
            == "x*|l=100|o=0|c=FR,US|r=5.0")
    }

    /// Words beyond ASCII go through their UTF-8 as a String would spell them.
    @Test func keysOfOtherScriptsAreTheirUTF8() {
        let moscow = PreparedQuery(SearchQuery("Москва"))
        #expect(moscow.key == String(decoding: moscow.parsed.words[0].units, as: UTF16.self) + "*|l=10|o=0")
        #expect(PreparedQuery(SearchQuery("東京 x")).key.hasSuffix(" x*|l=10|o=0"))
    }

    @Test func queriesWithTheSameMeaningShareAKey() {
        #expect(PreparedQuery(SearchQuery("Zürich")).key == PreparedQuery(SearchQuery("zurich")).key)
        #expect(PreparedQuery(SearchQuery("a", limit: 9)).key != PreparedQuery(SearchQuery("a", limit: 10)).key)
    }
}
