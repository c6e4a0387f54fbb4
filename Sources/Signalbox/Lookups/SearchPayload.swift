import Foundation
import Search

/// A computed search result, encoded once and shared by every request for its key.
///
/// The hits are kept as JSON bytes so a cache hit costs no encoding; each
/// response splices in its own `took_us`.
struct SearchPayload: Sendable {
    /// The query text as given.
    let query: String
    let total: Int
    /// The encoded `hits` array.
    let hitsJSON: [UInt8]
    /// Strong validator of query, total and hits.
    let etag: String
    /// The index version the result was computed from.
    let indexVersion: UInt64
    /// How long the computation took, reported as `took_us` where no request was timed (live results).
    let computeMicroseconds: Int

    init(result: SearchResult, indexVersion: UInt64, computeMicroseconds: Int) {
        query = result.query
        total = result.total
        hitsJSON = (try? Self.encoder.encode(result.hits.map(HitBody.init))).map(Array.init) ?? Array("[]".utf8)
        var hasher = FNV1a()
        hasher.combine(Array(query.utf8))
        hasher.combine(Array(String(total).utf8))
        hasher.combine(hitsJSON)
        etag = "\"\(String(hasher.value, radix: 16))\""
        self.indexVersion = indexVersion
        self.computeMicroseconds = computeMicroseconds
    }

    /// The response body: `{"query": …, "total": N, "took_us": N, "hits": […]}`.
    func body(tookMicroseconds: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(hitsJSON.count + query.utf8.count + 64)
        out.append(contentsOf: #"{"query":"#.utf8)
        out.append(contentsOf: (try? Self.encoder.encode(query)) ?? Data("\"\"".utf8))
        out.append(contentsOf: #","total":"#.utf8)
        out.append(contentsOf: String(total).utf8)
        out.append(contentsOf: #","took_us":"#.utf8)
        out.append(contentsOf: String(tookMicroseconds).utf8)
        out.append(contentsOf: #","hits":"#.utf8)
        out.append(contentsOf: hitsJSON)
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// One hit as the API shows it.
    private struct HitBody: Encodable {
        let id: String
        let name: String
        let highlight: [[Int]]
        let rank: Double
        let attributes: [String: AttributeValue]

        init(_ hit: Hit) {
            id = hit.document.id
            name = hit.document.name
            highlight = hit.highlight
            rank = hit.document.rank
            attributes = hit.document.attributes
        }

        func encode(to encoder: any Encoder) throws {
            // Same shape as Document's own encoding, plus the highlight.
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(highlight, forKey: .highlight)
            try container.encodeRank(rank, forKey: .rank)
            try container.encode(attributes, forKey: .attributes)
        }

        enum CodingKeys: String, CodingKey { case id, name, highlight, rank, attributes }
    }
}

/// 64-bit FNV-1a, for ETags (stable across runs, unlike `Hasher`).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func combine(_ bytes: [UInt8]) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
        value ^= 0xff
        value &*= 0x100_0000_01b3
    }
}
