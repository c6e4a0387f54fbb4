import Testing

@testable import Search

@Suite struct DefaultDataSetTests {
    @Test func loadsAboutThirtyFourThousandCities() throws {
        let documents = Cities.documents
        #expect((33_000...35_000).contains(documents.count))
        #expect(documents.allSatisfy { $0.rank >= 15_000 })
        let berlin = try #require(documents.first { $0.id == "2950159" })
        #expect(berlin.name == "Berlin")
        #expect(berlin.countryCode == "DE")
        #expect(berlin.attributes["timezone"] == "Europe/Berlin")
    }

    @Test func basicSearchFindsTheCityMeant() {
        #expect(Cities.top("berlin")?.document.name == "Berlin")
        #expect(Cities.top("sao pa")?.document.name == "São Paulo")
        #expect(Cities.top("amsterdma")?.document.name == "Amsterdam")
    }
}
