import Foundation
import Testing

@testable import Search

/// `DocumentJSON` must agree with `JSONDecoder` wherever it answers, and answer for the bodies the store keeps.
@Suite struct DocumentJSONTests {
    /// The store's body form: `JSONCoding`'s encoder (sorted keys, slashes unescaped).
    private static func stored(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    @Test func readsEveryStoredBodyAsJSONDecoderDoes() throws {
        let documents = [
            Document(
                id: "2950159", name: "Berlin", alternateNames: ["Berlín", "Берлин", "柏林", "𝔅erlin"], rank: 3_426_354,
                attributes: [
                    "countryCode": "DE", "admin1Code": "16", "timezone": "Europe/Berlin", "latitude": 52.52437, "longitude": 13.41053,
                    "capital": true, "small": false, "negative": -7, "fraction": -0.125, "tiny": 1.5e-9,
                ]),
            Document(id: "w1", name: "Written 1", rank: 1),
            Document(id: "x", name: "Fractional rank", rank: 0.5),
            Document(id: "n", name: "Negative rank", rank: -12),
            Document(id: "a/b", name: "Slash / in it", alternateNames: []),
            Document(id: "big", name: "Big", rank: 9.0e15, attributes: ["max": .int(.max), "min": .int(.min)]),
        ]
        for document in documents {
            let body = try Self.stored(document)
            let read = try #require(DocumentJSON.document(body), "\(String(decoding: body, as: UTF8.self))")
            #expect(read == document)
            #expect(read == (try JSONDecoder().decode(Document.self, from: body)))
        }
    }

    @Test func leavesToJSONDecoderWhatIsNotPlain() {
        let bodies = [
            #"{"id":"1","name":"Quote \" in it"}"#,  // an escape
            #"{"id":"1","name":"x","extra":1}"#,  // a key it does not know
            #"{"id":"1","id":"2","name":"x"}"#,  // a key twice
            #"{"id":"1","name":"x","attributes":{"a":2.0}}"#,  // whole, written with a fraction
            #"{"id":"1","name":"x","attributes":{"a":1e3}}"#,
            #"{"id":"1","name":"x","attributes":{"a":123456789012345678901}}"#,  // past Int64
            #"{"id":"1","name":"x","attributes":{"a":null}}"#,
            #"{"id":"1","name":"x","attributes":{"a":1,"a":2}}"#,
            #"{"id":"1","name":"x"} trailing"#,
            #"{"id":"1","name":"x","rank":01}"#,
            #"{"id":"1","name":"x","rank":+1}"#,
            #"{"id":"1","name":"x","rank":1.}"#,
            #"{"id":"1","name":"x","rank":1e400}"#,
            #"{"id":"1","name":"x","rank":"5"}"#,
            #"{"id":"1","name":null}"#,
            #"{"id":1,"name":"x"}"#,
            #"{"id":"1","name":"x","alternateNames":["a",null]}"#,
            #"{"id":"1"}"#,
            #"["x"]"#,
            "",
            "{\"id\":\"1\",\"name\":\"tab\there\"}",  // a raw control character
        ]
        for body in bodies {
            #expect(DocumentJSON.read(Array(body.utf8)) == nil, "\(body)")
        }
        #expect(DocumentJSON.read([0x7B, 0x22, 0x6E, 0x61, 0x6D, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]) == nil)  // {"name":"<FF>"}
    }

    /// Whatever it reads, `JSONDecoder` reads alike (the `PUT` body's shape: `id` may be left out or null).
    @Test func agreesWithJSONDecoderWhereItReads() throws {
        let bodies = [
            #"{"name":"No id"}"#,
            #"{"id":null,"name":"Null id","rank":null,"alternateNames":null,"attributes":null}"#,
            #" { "id" : "7" , "name" : "Spaced" , "rank" : -0.25e1 , "alternateNames" : [ ] , "attributes" : { } } "#,
            #"{"name":"Ints","attributes":{"zero":0,"neg":-0,"e":-12,"f":12.75,"t":true}}"#,
            #"{"name":"Rank exp","rank":2E+3}"#,
        ]
        for body in bodies {
            let read = try #require(DocumentJSON.read(Array(body.utf8)), "\(body)")
            let decoded = try JSONDecoder().decode(Input.self, from: Data(body.utf8))
            #expect(read.id == decoded.id && read.name == decoded.name, "\(body)")
            #expect(read.alternateNames == (decoded.alternateNames ?? []) && read.rank == (decoded.rank ?? 0), "\(body)")
            #expect(read.attributes == (decoded.attributes ?? [:]), "\(body)")
        }
    }

    @Test func writesTheBytesTheStoresEncoderWrites() throws {
        var controls = ""
        for scalar in 0..<0x20 { controls.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        var documents = [
            Document(
                id: "2950159", name: "Berlin", alternateNames: ["Berlín", "Берлин", "柏林", "𝔅erlin"], rank: 3_426_354,
                attributes: ["countryCode": "DE", "latitude": 52.52437, "longitude": 13.41053, "capital": true, "no": false]),
            Document(id: "e", name: controls + #""\/"# + "\u{7F}\u{2028}é", alternateNames: [controls], rank: -0.0),
            Document(id: "r", name: "Ranks", rank: 9.0e15, attributes: ["B": 1, "a": -1, "_": 0.5, "10": 1e21, "9": 1.5e-9, "Z": -0.0]),
            Document(id: "f", name: "Fraction", rank: 0.1, attributes: ["max": .int(.max), "min": .int(.min), "s": "/path"]),
            Document(id: "empty", name: "x"),
        ]
        // Doubles of every size from a fixed sequence (a linear congruential generator).
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for n in 0..<200 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = Double(bitPattern: state >> 2)  // finite: the exponent's top bit stays clear
            documents.append(Document(id: "d\(n)", name: "N", rank: n % 2 == 0 ? value : -value, attributes: ["v": .double(value)]))
        }
        for document in documents {
            let written = try #require(DocumentJSON.body(of: document))
            #expect(written == Array(try Self.stored(document)), "\(String(decoding: written, as: UTF8.self))")
        }
        #expect(DocumentJSON.body(of: Document(id: "1", name: "x", attributes: ["é": 1])) == nil)
        #expect(DocumentJSON.body(of: Document(id: "1", name: "x", rank: .infinity)) == nil)
    }

    /// The `PUT` body's `Decodable` shape.
    private struct Input: Decodable {
        var id: String?
        var name: String
        var alternateNames: [String]?
        var rank: Double?
        var attributes: [String: AttributeValue]?
    }
}
