/// One normalized query word.
struct QueryWord: Sendable, Hashable {
    var units: [UInt16]
    /// The last word, still being typed: matches tokens that start with it.
    var isPrefix: Bool
    /// Typos allowed: 0 up to 4 letters, 1 for 5 to 8, 2 from 9; none for Han, kana, Hangul.
    var typoBudget: Int

    init(units: [UInt16], isPrefix: Bool, isCJK: Bool) {
        self.units = units
        self.isPrefix = isPrefix
        typoBudget = isCJK ? 0 : Self.typoBudget(letters: units.count)
    }

    static func typoBudget(letters: Int) -> Int {
        letters <= 4 ? 0 : letters <= 8 ? 1 : 2
    }

    /// Typos needed for this word to match `token`, and how many units of the token match
    /// (the whole token, or a prefix of it for a prefix word); nil beyond the budget.
    func match(_ token: ArraySlice<UInt16>) -> (typos: Int, length: Int)? {
        // The common case, an exact (prefix) match, needs no distance table: no shorter or longer
        // token prefix can be within fewer typos.
        if isPrefix {
            if token.starts(with: units) { return (0, units.count) }
            return Typos.prefixDistance(word: units, token: token, limit: typoBudget)
        }
        if token.elementsEqual(units) { return (0, token.count) }
        guard let typos = Typos.distance(units, token, limit: typoBudget) else { return nil }
        return (typos, token.count)
    }
}

/// A `SearchQuery` normalized once: words, clamped paging, compiled filters.
struct ParsedQuery: Sendable {
    var text: String
    var words: [QueryWord]
    var limit: Int
    var offset: Int
    var countryCodes: [String]
    /// Allowed `CountryCode` indexes; nil means any.
    var countryMask: [Bool]?
    var minRank: Double?

    /// `maxWords`: the words kept (the cities' 8; a collection takes more, `CollectionSearch.maxWords`).
    init(_ query: SearchQuery, maxWords: Int = SearchQuery.Limits.maxWords) {
        text = query.text
        var buffer = TokenBuffer()
        var text = query.text
        if text.utf8.count > SearchQuery.Limits.maxTextBytes {
            text = String(decoding: text.utf8.prefix(SearchQuery.Limits.maxTextBytes), as: UTF8.self)
        }
        Normalizer.scan(text, into: &buffer)
        let spans = buffer.spans.prefix(maxWords)
        // The last word is complete when the text goes on after it (a space, a full stop...).
        let scalarCount = text.unicodeScalars.count
        words = spans.enumerated().map { index, span in
            let isLast = index == spans.count - 1
            return QueryWord(
                units: Array(buffer.units(of: span)),
                isPrefix: isLast && Int(span.scalarEnd) == scalarCount && spans.count == buffer.spans.count,
                isCJK: span.isCJK)
        }
        limit = min(max(query.limit, 0), SearchQuery.Limits.maxLimit)
        offset = min(max(query.offset, 0), SearchQuery.Limits.maxOffset)
        if query.countries.isEmpty {
            countryCodes = []
            countryMask = nil
        } else {
            let codes = Set(query.countries.map { $0.uppercased() }).filter { CountryCode.index(of: $0) != CountryCode.none }
            countryCodes = codes.sorted()
            var mask = [Bool](repeating: false, count: CountryCode.count)
            for code in codes { mask[Int(CountryCode.index(of: code))] = true }
            countryMask = mask
        }
        minRank = query.minRank.flatMap { $0.isFinite ? $0 : nil }
    }

    /// Whether the filters let `document` through.
    func passesFilters(_ document: Document) -> Bool {
        if let minRank, !(document.rank >= minRank) { return false }
        if let countryMask {
            let index = CountryCode.index(of: document.countryCode)
            return index != CountryCode.none && countryMask[Int(index)]
        }
        return true
    }

    /// Brute-force check, the same rule as the index: filters pass and the first word matches.
    func matches(_ document: Document) -> Bool {
        QueryMatcher(self).matches(MatchCandidate(document))
    }
}
