import Testing

@testable import Search

@Suite struct CitiesCollectionTests {
    static let index = CitiesCollection.index(Cities.documents)

    @Test func conversionGivesTheCollectionShape() throws {
        let berlin = try #require(Cities.documents.first { $0.id == "2950159" })
        let document = CitiesCollection.document(berlin)
        let body = String(decoding: document.body, as: UTF8.self)
        #expect(body.hasPrefix(#"{"id":"2950159","name":"Berlin","alternateNames":["#))
        #expect(body.hasSuffix(#","countryCode":"DE","admin1Code":"16","timezone":"Europe/Berlin","population":3426354,"latitude":52.52437,"longitude":13.41053}"#))
        #expect(document.value(of: "location", in: CitiesCollection.schema) == .geo(GeoPoint(latitude: 52.52437, longitude: 13.41053)))
        #expect(CitiesCollection.schema.isPublic)
        #expect(CitiesCollection.schema.rank == "population")
    }

    @Test func everyConvertedBodyDecodesToTheSameDocument() throws {
        for city in Cities.documents {
            let document = CitiesCollection.document(city)
            #expect(try CollectionDocument.decode(json: document.body, schema: CitiesCollection.schema) == document)
        }
        // Escapes in names survive.
        let odd = Document(id: "x1", name: "Quote \" back\\slash\ttab\u{1}", alternateNames: ["ü"], rank: 2.5, attributes: [:])
        let document = CitiesCollection.document(odd)
        #expect(try CollectionDocument.decode(json: document.body, schema: CitiesCollection.schema) == document)
    }

    @Test func searchFiltersFacetsAndGeoOnTheCities() throws {
        let index = Self.index
        #expect(index.count == Cities.documents.count)
        #expect(index.search(CollectionQuery(text: "berlin", limit: 1)).hits.first?.id == "2950159")
        #expect(index.search(CollectionQuery(text: "sao pa", limit: 1)).hits.first?.id == "3448439")
        let german = index.search(CollectionQuery(text: "b", filter: .compare(field: "countryCode", .equal, .string("de")), facets: ["countryCode", "timezone"], limit: 3))
        #expect(german.facets["countryCode"] == [FacetCount(value: "DE", count: german.total)])
        #expect(german.hits.first?.id == "2950159")
        let paris = GeoPoint(latitude: 48.85341, longitude: 2.3488)
        let near = index.search(CollectionQuery(filter: .geoRadius(center: paris, meters: 10_000), sort: [.distance(from: paris, descending: false)], facets: ["population"], limit: 100))
        let first = try #require(near.hits.first)
        #expect(first.id == "2988507")  // Paris
        #expect(near.hits.allSatisfy { ($0.distance ?? .infinity) <= 10_000 })
        #expect(near.hits.map { $0.distance! } == near.hits.map { $0.distance! }.sorted())
        #expect(near.stats["population"].map { $0.max >= 2_000_000 } == true)
    }
}
