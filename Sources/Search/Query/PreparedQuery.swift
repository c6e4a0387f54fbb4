/// A `SearchQuery` normalized once, for everything a request asks of it: the
/// cache key, the live-query matcher and the index's search all read the same
/// parsed words (a cache miss used to normalize the text three times).
public struct PreparedQuery: Sendable {
    /// The query as given.
    public let query: SearchQuery
    let parsed: ParsedQuery
    /// A canonical form for caches: the normalized words (and whether the last is a prefix),
    /// page, sorted distinct countries and minimum rank. Two queries with the same key have the
    /// same result on the same index version.
    public let key: String

    public init(_ query: SearchQuery) {
        self.query = query
        parsed = ParsedQuery(query)
        key = Self.key(of: parsed)
    }

    private static func key(of parsed: ParsedQuery) -> String {
        // Built as bytes: a key per request is on the uncached path of every search.
        var key: [UInt8] = []
        key.reserveCapacity(parsed.words.reduce(24) { $0 + $1.units.count * 3 + 1 })
        for (index, word) in parsed.words.enumerated() {
            if index > 0 { key.append(0x20) }
            key += String(decoding: word.units, as: UTF16.self).utf8
        }
        if let last = parsed.words.last, last.isPrefix { key.append(0x2A) }  // "*"
        key += "|l=".utf8
        key += String(parsed.limit).utf8
        key += "|o=".utf8
        key += String(parsed.offset).utf8
        if !parsed.countryCodes.isEmpty {
            key += "|c=".utf8
            key += parsed.countryCodes.joined(separator: ",").utf8
        }
        if let minRank = parsed.minRank { key += "|r=\(minRank)".utf8 }
        return String(decoding: key, as: UTF8.self)
    }
}
