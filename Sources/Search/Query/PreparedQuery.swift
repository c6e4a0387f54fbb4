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
            // ASCII words (most) byte by byte; transcoding through a String cost more than the
            // rest of the key (callgrind, uncached /search).
            if word.units.allSatisfy({ $0 < 0x80 }) {
                for unit in word.units { key.append(UInt8(truncatingIfNeeded: unit)) }
            } else {
                key += String(decoding: word.units, as: UTF16.self).utf8
            }
        }
        if let last = parsed.words.last, last.isPrefix { key.append(0x2A) }  // "*"
        key += "|l=".utf8
        appendDecimal(parsed.limit, to: &key)
        key += "|o=".utf8
        appendDecimal(parsed.offset, to: &key)
        if !parsed.countryCodes.isEmpty {
            key += "|c=".utf8
            key += parsed.countryCodes.joined(separator: ",").utf8
        }
        if let minRank = parsed.minRank { key += "|r=\(minRank)".utf8 }
        return String(decoding: key, as: UTF8.self)
    }

    /// `value`'s digits, as `String(value)` (limit and offset are clamped, never negative).
    private static func appendDecimal(_ value: Int, to key: inout [UInt8]) {
        let value = max(value, 0)
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            key.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        }
    }
}
