import Foundation
import Search
import Testing
@testable import Signalbox

/// The hand-written hit encoding must produce what `JSONEncoder` would, byte for byte.
@Suite struct SearchPayloadTests {
    /// The reference: a hit as `JSONEncoder` with the service's options writes it.
    struct ReferenceHit: Encodable {
        let id: String
        let name: String
        let highlight: [[Int]]
        let rank: Double
        let attributes: [String: AttributeValue]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(highlight, forKey: .highlight)
            try container.encodeRank(rank, forKey: .rank)
            try container.encode(attributes, forKey: .attributes)
        }

        enum CodingKeys: String, CodingKey { case id, name, highlight, rank, attributes }
    }

    static let documents = [
        Document(id: "1", name: "São Paulo", rank: 12_325_232, attributes: [
            "countryCode": "BR", "latitude": -23.5475, "longitude": -46.63611, "timezone": "America/Sao_Paulo",
            "admin1Code": "27",
        ]),
        Document(id: "q\"uote\\back/slash", name: "Tab\tNew\nline\u{1}\u{1F}\u{7F} 東京 🙂", rank: 0.5, attributes: [
            "flag": true, "off": false, "count": -42, "big": 1e21, "tiny": 1e-7, "whole": 100.0, "zero": -0.0,
            "": "empty key", "Zed": "upper first",
        ]),
        Document(id: "3", name: "", rank: 9.5e15, attributes: [:]),
    ]

    static let hits = documents.enumerated().map { index, document in
        Hit(document: document, highlight: index == 0 ? [[0, 3], [4, 6]] : [], wordsMatched: 1, typos: 0)
    }

    @Test func hitsEncodeExactlyAsJSONEncoderWould() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let reference = try encoder.encode(Self.hits.map {
            ReferenceHit(id: $0.document.id, name: $0.document.name, highlight: $0.highlight,
                         rank: $0.document.rank, attributes: $0.document.attributes)
        })
        let ours = SearchPayload.encode(Self.hits)
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: reference, as: UTF8.self))
    }

    @Test func bodyIsValidJSONWithTheQueryEscaped() throws {
        let payload = SearchPayload(
            result: SearchResult(query: "sa\"o\\ pa", total: 3, hits: Self.hits), indexVersion: 1, computeMicroseconds: 7)
        let body = payload.body(tookMicroseconds: 12)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(object["query"] as? String == "sa\"o\\ pa")
        #expect(object["total"] as? Int == 3)
        #expect(object["took_us"] as? Int == 12)
        #expect((object["hits"] as? [Any])?.count == 3)
    }

    /// Numbers take a short path (digits of an exact decimal) where they can; every one must
    /// read as `JSONEncoder` writes it (`description` without a trailing ".0").
    @Test func doublesAreWrittenAsJSONEncoderWould() throws {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [
            0, -0.0, 1, -1, 0.1, 0.2, 0.3, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 12.5, -23.5475, -46.63611, 1e-4, 1.1e-4,
            9.99e-5, 1e-5, 1e14, 99_999_999_999_999.9, 999_999_999_999_999, 1e15, 9_007_199_254_740_992, 1e16,
            123_456_789_012_345, 1e21, 1e-7, .ulpOfOne, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        for _ in 0..<20_000 {
            let decimals = Int.random(in: 0...9, using: &generator)
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            values.append(Double(Int64.random(in: -180_000_000...180_000_000, using: &generator)) / scale)
            values.append(Double.random(in: -1_000...1_000, using: &generator))
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator)))
        }
        for value in values where value.isFinite {
            var json = JSONWriter()
            json.number(value)
            var expected = value.description
            if expected.hasSuffix(".0") { expected.removeLast(2) }
            #expect(String(decoding: json.bytes, as: UTF8.self) == expected, "\(value)")
        }
        let encoded = try JSONEncoder().encode(values.filter(\.isFinite))
        let ours = values.filter(\.isFinite).map { value -> String in
            var json = JSONWriter()
            json.number(value)
            return String(decoding: json.bytes, as: UTF8.self)
        }
        #expect("[" + ours.joined(separator: ",") + "]" == String(decoding: encoded, as: UTF8.self))
    }

    /// Strings are checked eight bytes a step: a character to escape at any position, in the
    /// words or the tail, is escaped as `JSONEncoder` does.
    @Test func stringsEscapeAtEveryPosition() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "\u{7F}", "/", "é", " "] {
            for length in [1, 7, 8, 9, 15, 16, 17, 23] {
                for position in 0..<length {
                    let text = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position - 1)
                    var json = JSONWriter()
                    json.string(text)
                    #expect(String(decoding: json.bytes, as: UTF8.self) == String(decoding: try encoder.encode(text), as: UTF8.self))
                }
            }
        }
    }

    @Test func emptyHitsAreAnEmptyArray() {
        #expect(SearchPayload.encode([]) == Array("[]".utf8))
    }
}
