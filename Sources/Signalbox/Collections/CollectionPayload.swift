import Base
import Search

/// A collection search's result as the API answers it, encoded once:
/// `{"query", "total", "took_us", "hits": [{"id", "document", "highlight", "distance"}], "facets", "stats"}`.
struct CollectionPayload: Sendable, Equatable {
    let query: String
    let result: CollectionSearchResult
    /// Everything after `took_us`: hits, facets and stats.
    let tailJSON: [UInt8]
    /// The index version the result was computed from.
    let indexVersion: UInt64
    let computeMicroseconds: Int

    init(query: String, result: CollectionSearchResult, indexVersion: UInt64, computeMicroseconds: Int) {
        self.query = query
        self.result = result
        self.indexVersion = indexVersion
        self.computeMicroseconds = computeMicroseconds
        tailJSON = Self.encode(result)
    }

    /// Two results a client cannot tell apart (whenever and however fast they were computed).
    static func == (lhs: CollectionPayload, rhs: CollectionPayload) -> Bool {
        lhs.query == rhs.query && lhs.tailJSON == rhs.tailJSON
    }

    func body(tookMicroseconds: Int) -> [UInt8] {
        var json = JSONWriter(capacity: query.utf8.count + tailJSON.count + 64)
        json.raw("{")
        json.plainKey("query")
        json.string(query)
        json.raw(",")
        json.plainKey("total")
        json.number(result.total)
        json.raw(",")
        json.plainKey("took_us")
        json.number(tookMicroseconds)
        json.raw(",")
        return json.bytes(followedBy: tailJSON, and: UInt8(ascii: "}"))
    }

    private static func encode(_ result: CollectionSearchResult) -> [UInt8] {
        var json = JSONWriter(capacity: result.hits.reduce(64) { $0 + $1.body.count + 64 })
        json.plainKey("hits")
        json.raw("[")
        for (position, hit) in result.hits.enumerated() {
            if position > 0 { json.raw(",") }
            json.raw("{")
            if let distance = hit.distance {
                json.plainKey("distance")
                json.number(distance.rounded())
                json.raw(",")
            }
            json.plainKey("document")
            json.raw(hit.body)
            json.raw(",")
            json.plainKey("highlight")
            json.raw("{")
            for (index, field) in hit.highlight.keys.sorted().enumerated() {
                if index > 0 { json.raw(",") }
                json.key(field)
                json.raw("[")
                for (r, range) in (hit.highlight[field] ?? []).enumerated() {
                    if r > 0 { json.raw(",") }
                    json.raw("[")
                    for (n, value) in range.enumerated() {
                        if n > 0 { json.raw(",") }
                        json.number(value)
                    }
                    json.raw("]")
                }
                json.raw("]")
            }
            json.raw("},")
            json.plainKey("id")
            json.string(hit.id)
            json.raw("}")
        }
        json.raw("]")
        if !result.facets.isEmpty {
            json.raw(",")
            json.plainKey("facets")
            json.raw("{")
            for (index, field) in result.facets.keys.sorted().enumerated() {
                if index > 0 { json.raw(",") }
                json.key(field)
                json.raw("{")
                for (n, facet) in (result.facets[field] ?? []).enumerated() {
                    if n > 0 { json.raw(",") }
                    json.key(facet.value)
                    json.number(facet.count)
                }
                json.raw("}")
            }
            json.raw("}")
        }
        if !result.stats.isEmpty {
            json.raw(",")
            json.plainKey("stats")
            json.raw("{")
            for (index, field) in result.stats.keys.sorted().enumerated() {
                if index > 0 { json.raw(",") }
                json.key(field)
                let stats = result.stats[field]!
                json.raw("{")
                json.plainKey("max")
                json.number(stats.max)
                json.raw(",")
                json.plainKey("min")
                json.number(stats.min)
                json.raw("}")
            }
            json.raw("}")
        }
        return json.bytes
    }
}
