/// Orders a text query's best candidates by how exactly a searched field holds the query (issue
/// 28's collection rules), after the words matched and the typos, before the fields' weights and
/// exact-over-prefix: first a field whose words are the query's words (each within its typo
/// budget, the last as typed: a prefix if it is one), then a field that starts with them, then
/// the rest, an earlier searched field first at the same level. So a file named `pipes.conf` is
/// first for `pipes c` (not `libxslt.pipes.c`, whose `c` is a whole word), and a package field that
/// is the query (`libfoo-dev`) is before a heavier field holding its words among others
/// (`libfoo+bar-dev`). Then the rest of the key (weights, prefixes, synonyms); then the shorter
/// field that holds a query word (fewer other words around the match). Ties left keep their order
/// (the rank field, then the id).
///
/// The key cannot hold this (it is per field, not per word), so it is read from the documents of
/// at most `pool` candidates, the best by the key: a candidate the key puts beyond the pool is
/// not seen.
struct ExactnessOrder {
    /// Candidates examined beyond the page: enough for the ties a typed name has in practice,
    /// few enough to stay a small part of a query's time (one document decode each).
    static let pool = 48

    let words: [QueryWord]
    let layout: SchemaLayout

    /// How a field holds the query's words, best first.
    enum Level: Int {
        /// The field's words are the query's.
        case whole
        /// The field starts with the query's words.
        case start
        /// The query's words follow each other, in order, later in the field (a phrase).
        case phrase
        /// Anything else (the words apart, out of order, or in several fields).
        case other
    }

    /// (level: `Level` times the searched fields, plus the position of the first field at that
    /// level; words in the shortest field matching a query word) for `document`.
    func measure(_ document: CollectionDocument, buffer: inout TokenBuffer) -> (level: Int, length: Int) {
        let fields = layout.searched.count
        var level = Level.other.rawValue * fields, length = Int.max
        for (position, (field, _)) in layout.searched.enumerated() {
            let texts: [String]
            switch document.values[field] {
            case .string(let text)?: texts = [text]
            case .strings(let list)?: texts = list
            default: continue
            }
            for text in texts {
                Normalizer.scan(text, into: &buffer)
                let tokens = buffer.spans.map { buffer.units(of: $0) }
                guard tokens.contains(where: { token in words.contains { $0.match(token) != nil } }) else { continue }
                length = min(length, tokens.count)
                if let found = Self.level(of: words, in: tokens) {
                    level = min(level, found.rawValue * fields + position)
                }
            }
        }
        return (level, length)
    }

    /// Where `words` follow each other in order in `tokens` (each within its typo budget, the last
    /// as typed), the earliest place: nil when they do not.
    static func level(of words: [QueryWord], in tokens: [ArraySlice<UInt16>]) -> Level? {
        guard !words.isEmpty, tokens.count >= words.count else { return nil }
        for start in 0...(tokens.count - words.count)
        where words.indices.allSatisfy({ words[$0].match(tokens[start + $0]) != nil }) {
            return start > 0 ? .phrase : tokens.count == words.count ? .whole : .start
        }
        return nil
    }

    /// `ranked` (in key order) ordered by words matched and typos (the key's top bits), then
    /// `measure`'s level, then the rest of the key, then `measure`'s length, stably.
    func reorder(_ ranked: [CollectionSearch.Ranked], document: (CollectionSearch.Ranked) -> CollectionDocument?) -> [CollectionSearch.Ranked] {
        guard words.count > 0, ranked.count > 1 else { return ranked }
        var buffer = TokenBuffer()
        let keyed = ranked.enumerated().map { offset, candidate -> (words: UInt64, level: Int, tier: UInt64, length: Int, offset: Int) in
            let measured = document(candidate).map { measure($0, buffer: &buffer) } ?? (level: Int.max, length: Int.max)
            return (candidate.tier >> CollectionRankKey.typoShift, measured.level, candidate.tier, measured.length, offset)
        }
        return keyed.sorted { a, b in
            (a.words, a.level, a.tier, a.length, a.offset) < (b.words, b.level, b.tier, b.length, b.offset)
        }.map { ranked[$0.offset] }
    }
}
