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

    @Test func emptyHitsAreAnEmptyArray() {
        #expect(SearchPayload.encode([]) == Array("[]".utf8))
    }
}
