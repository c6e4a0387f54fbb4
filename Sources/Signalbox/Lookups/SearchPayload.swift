import Base
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
        hitsJSON = Self.encode(result.hits)
        var hasher = PayloadHasher()
        var text = query
        text.withUTF8 { hasher.combine(UnsafeRawBufferPointer($0)) }
        hasher.combine(total)
        hitsJSON.withUnsafeBytes { hasher.combine($0) }
        etag = hasher.etag
        self.indexVersion = indexVersion
        self.computeMicroseconds = computeMicroseconds
    }

    /// The response body: `{"query": …, "total": N, "took_us": N, "hits": […]}`.
    func body(tookMicroseconds: Int) -> [UInt8] {
        var json = JSONWriter(capacity: query.utf8.count + 64)
        json.raw("{")
        json.plainKey("query")
        json.string(query)
        json.raw(",")
        json.plainKey("total")
        json.number(total)
        json.raw(",")
        json.plainKey("took_us")
        json.number(tookMicroseconds)
        json.raw(",")
        json.plainKey("hits")
        // The hits are copied once, into the body's own allocation.
        return json.bytes(followedBy: hitsJSON, and: UInt8(ascii: "}"))
    }

    /// The hits as the API shows them: a document's own fields (without alternate names)
    /// plus the highlight, keys in sorted order.
    static func encode(_ hits: [Hit]) -> [UInt8] {
        var json = JSONWriter(capacity: 256 * hits.count + 2)
        json.raw("[")
        for (position, hit) in hits.enumerated() {
            if position > 0 { json.raw(",") }
            let document = hit.document
            json.raw("{")
            json.plainKey("attributes")
            json.raw("{")
            writeSorted(document.attributes, to: &json)
            json.raw("},")
            json.plainKey("highlight")
            json.raw("[")
            for (index, range) in hit.highlight.enumerated() {
                if index > 0 { json.raw(",") }
                json.raw("[")
                for (bound, value) in range.enumerated() {
                    if bound > 0 { json.raw(",") }
                    json.number(value)
                }
                json.raw("]")
            }
            json.raw("],")
            json.plainKey("id")
            json.string(document.id)
            json.raw(",")
            json.plainKey("name")
            json.string(document.name)
            json.raw(",")
            json.plainKey("rank")
            if let whole = Document.wholeRank(document.rank) {
                json.number(whole)
            } else {
                json.number(document.rank)
            }
            json.raw("}")
        }
        json.raw("]")
        return json.bytes
    }

    /// The attributes' pairs in key order. Their positions are sorted on the stack: a sorted
    /// array of the pairs cost an allocation, runtime generic metadata for the tuple type and
    /// a copy of every pair per hit (about a tenth of the encoding, callgrind).
    private static func writeSorted(_ attributes: [String: AttributeValue], to json: inout JSONWriter) {
        guard !attributes.isEmpty else { return }
        withUnsafeTemporaryAllocation(of: Dictionary<String, AttributeValue>.Index.self, capacity: attributes.count) { positions in
            let base = positions.baseAddress!
            var sorted = 0
            var next = attributes.startIndex
            while next != attributes.endIndex {
                // Insertion sort: a document has a handful of attributes.
                // Keys only: the pair would copy (and destroy) each value too.
                let key = attributes.keys[next]
                var slot = sorted
                while slot > 0 && key < attributes.keys[base[slot - 1]] { slot -= 1 }
                (base + slot + 1).moveInitialize(from: base + slot, count: sorted - slot)
                (base + slot).initialize(to: next)
                sorted += 1
                attributes.formIndex(after: &next)
            }
            for offset in 0..<sorted {
                let (key, value) = attributes[base[offset]]
                if offset > 0 { json.raw(",") }
                json.key(key)
                switch value {
                case .string(let value): json.string(value)
                case .int(let value): json.number(value)
                case .double(let value): json.number(value)
                case .bool(let value): json.bool(value)
                }
            }
            base.deinitialize(count: sorted)
        }
    }
}
