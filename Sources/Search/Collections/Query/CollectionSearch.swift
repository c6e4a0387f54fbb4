/// Runs one `CollectionQuery` over a snapshot, segment by segment: the filter compiled for the
/// segment, then the text's matches that pass it (or, for an empty text, the filter's set), each
/// counted for `total` and the facets in the same pass and offered to a bounded heap of the best
/// `offset + limit` across segments (by the sort keys, then relevance).
struct CollectionSearch {
    /// A matching document on its way to the page.
    struct Ranked {
        var part: Int32
        var document: UInt32
        /// The relevance key without the document number (`CollectionRankKey`).
        var tier: UInt64
        /// The sort keys' values (`SortPlan`).
        var keys: SIMD4<Double>
    }

    let snapshot: CollectionSnapshot
    let layout: SchemaLayout
    let decoder: CollectionDocumentDecoder
    let query: CollectionQuery
    let words: [QueryWord]
    /// The words with their synonyms' phrases (`QueryRules`).
    let plan: QueryPlan
    let sort: SortPlan
    let limit: Int
    let offset: Int
    let textFilter: TextFilterStrategy

    init(
        snapshot: CollectionSnapshot, layout: SchemaLayout, decoder: CollectionDocumentDecoder, query: CollectionQuery,
        textFilter: TextFilterStrategy = .byCost, rules: QueryRules = .none
    ) {
        self.textFilter = textFilter
        self.snapshot = snapshot
        self.layout = layout
        self.decoder = decoder
        self.query = query
        // The cities' word parsing (more words kept); then the collection's stop words and synonyms,
        // and a typo for a short word nothing holds as typed.
        var plan = rules.plan(CollectionWords.parse(query.text, layout: layout))
        plan.words = CollectionWords.withShortWordTypos(plan.words, in: snapshot)
        self.plan = plan
        words = plan.words
        sort = SortPlan(query.sort, layout: layout)
        limit = min(max(query.limit, 0), CollectionQuery.Limits.maxLimit)
        offset = min(max(query.offset, 0), CollectionQuery.Limits.maxOffset)
    }

    func run(scratch: SearchScratch) -> CollectionSearchResult {
        // A text query without sort keys looks at a few more candidates, to order their ties by exactness.
        let exactness = !words.isEmpty && sort.isEmpty && limit > 0
        var heap = BoundedHeap<Ranked>(capacity: exactness ? max(offset + limit, ExactnessOrder.pool) : offset + limit)
        var facets = FacetCounter(query.facets, layout: layout)
        var total = 0
        let precedes = order()
        for (index, part) in snapshot.parts.enumerated() {
            let segment = part.segment
            let partIndex = Int32(index)
            let filter = query.filter.map { SegmentFilter($0, segment: segment, layout: layout) }
            facets.begin(part)
            if words.isEmpty {
                if filter == nil, !facets.isEmpty { facets.addAll(except: part.deleted, deletedCount: part.deletedCount) }
                if filter == nil, sort.isEmpty {
                    // Every live document, in rank order: only the first `offset + limit` can be on the page.
                    total += part.liveCount
                    var offered = 0, d: UInt32 = 0
                    while offered < heap.capacity, Int(d) < segment.count {
                        if part.deletedCount == 0 || !part.deleted.contains(d) {
                            heap.offer(Ranked(part: partIndex, document: d, tier: 0, keys: .zero), precedes: precedes)
                            offered += 1
                        }
                        d += 1
                    }
                    continue
                }
                var matches = filterDocuments(filter, of: segment) ?? .all(capacity: segment.count)
                if part.deletedCount > 0 { matches.subtract(part.deleted) }
                if filter != nil, !facets.isEmpty { facets.add(matches) }
                if sort.isEmpty {
                    // Documents are numbered by rank: without sort keys, a segment's first are its best.
                    var offered = 0
                    matches.forEach { d in
                        total += 1
                        guard offered < heap.capacity else { return }
                        heap.offer(Ranked(part: partIndex, document: d, tier: 0, keys: .zero), precedes: precedes)
                        offered += 1
                    }
                } else {
                    var documents: [UInt32] = []
                    documents.reserveCapacity(part.liveCount)
                    matches.forEach { documents.append($0) }
                    total += documents.count
                    guard heap.capacity > 0 else { continue }
                    let keys = documents.withUnsafeBufferPointer { sort.values($0, in: segment) }
                    offerBest(documents.indices.lazy.map { (document: documents[$0], tier: UInt64(0), keys: keys[$0]) }, part: partIndex, to: &heap, precedes: precedes)
                }
            } else {
                var accumulator = scratch.accumulator(documents: segment.count)
                matchText(part, filter: filter, accumulator: &accumulator, scratch: scratch)
                if !facets.isEmpty { facets.add(accumulator.touched) }
                total += accumulator.touchedCount
                if sort.isEmpty {
                    // Within a segment the key (tier, then number) is the order: keep its best by
                    // key, then offer only those across segments.
                    var best = BoundedHeap<UInt64>(capacity: heap.capacity)
                    for d in accumulator.touched { best.offer(accumulator.key[Int(d)], precedes: <) }
                    for key in best.elements {
                        heap.offer(Ranked(part: partIndex, document: UInt32(truncatingIfNeeded: key), tier: CollectionRankKey.tier(key), keys: .zero), precedes: precedes)
                    }
                } else if heap.capacity > 0 {
                    let keys = sort.values(accumulator.touched, in: segment)
                    let touched = accumulator.touched, key = accumulator.key
                    offerBest(
                        touched.indices.lazy.map { (document: touched[$0], tier: CollectionRankKey.tier(key[Int(touched[$0])]), keys: keys[$0]) },
                        part: partIndex, to: &heap, precedes: precedes)
                }
                scratch.accumulator = accumulator
            }
        }
        var ranked = heap.sorted(by: precedes)
        // Every body the query reads (the exactness pool's, the page's), read once, in batches.
        let bodies = readBodies(exactness ? ranked[...] : ranked.dropFirst(offset).prefix(limit))
        if exactness {
            ranked = ExactnessOrder(words: words, layout: layout).reorder(ranked) { candidate in
                bodies[Self.bodyKey(candidate)].flatMap { try? decoder.decode($0) }
            }
        }
        let page = ranked.dropFirst(offset).prefix(limit)
        let distanceFrom = sort.distancePoint ?? query.filter.flatMap(SegmentFilter.radiusCenter(in:))
        var buffer = TokenBuffer()
        let hits = page.map { ranked in
            hit(for: ranked, body: bodies[Self.bodyKey(ranked)] ?? SegmentBodies.unreadable, distanceFrom: distanceFrom, buffer: &buffer)
        }
        let (facetCounts, stats) = facets.result(
            limit: min(max(query.facetValuesLimit, 0), CollectionQuery.Limits.maxFacetValues), decoder: decoder)
        return CollectionSearchResult(total: total, hits: hits, facets: facetCounts, stats: stats)
    }

    /// Offers a segment's matches to the page's heap: first the segment's own best `capacity`
    /// by `SortPlan.SegmentKey` (integers, no closure), then only those across segments.
    private func offerBest(
        _ candidates: some Sequence<(document: UInt32, tier: UInt64, keys: SIMD4<Double>)>, part: Int32,
        to heap: inout BoundedHeap<Ranked>, precedes: (Ranked, Ranked) -> Bool
    ) {
        var best = BoundedHeap<(key: SortPlan.SegmentKey, keys: SIMD4<Double>)>(capacity: heap.capacity)
        for candidate in candidates {
            let key = sort.segmentKey(candidate.keys, relevance: candidate.tier | UInt64(candidate.document))
            best.offer((key, candidate.keys), precedes: { $0.key < $1.key })
        }
        for entry in best.elements {
            let relevance = entry.key.relevance
            heap.offer(
                Ranked(part: part, document: UInt32(truncatingIfNeeded: relevance), tier: CollectionRankKey.tier(relevance), keys: entry.keys),
                precedes: precedes)
        }
    }

    /// Records the documents of `part` matching the words into `accumulator` (the first word
    /// admits documents, later words rank them), skipping deleted ones and those the filter
    /// refuses. The filter is evaluated once as a set (then a bit test per posting) when that
    /// costs less than testing each posting of the first word (a test of a document reads its
    /// columns at random: counted as 8 set steps), or is taken from the segment's cache;
    /// otherwise per document admitted.
    private func matchText(_ part: CollectionSnapshot.Part, filter: SegmentFilter?, accumulator: inout Accumulator, scratch: SearchScratch) {
        let text = part.segment.text
        let missing = UInt64(words.count - 1)
        let wordMatches = words.map { text.dictionary.matches($0, scratch: scratch) }
        var filterSet: DocumentSet?
        if let filter {
            let postings = wordMatches[0].reduce(0) { $0 + text.postingStarts[$1.terms.upperBound] - text.postingStarts[$1.terms.lowerBound] }
            let asSet: Bool
            switch textFilter {
            case .byCost:
                // A set a recent query left in the segment's cache costs only its masking.
                let cached = query.filter.map { part.segment.filterSets.contains($0) } ?? false
                asSet = (cached ? part.segment.count / 64 : filter.setCost(count: part.segment.count)) < postings * 8
            case .perDocument: asSet = false
            case .asSet: asSet = true
            }
            if asSet, var set = filterDocuments(filter, of: part.segment) {
                if part.deletedCount > 0 { set.subtract(part.deleted) }
                filterSet = set
            }
        }
        let checkDeleted = part.deletedCount > 0 && filterSet == nil
        text.postings.withUnsafeBufferPointer { postings in
            for (index, word) in words.enumerated() {
                let mark = UInt8(index + 1)
                for match in wordMatches[index] {
                    for term in match.terms {
                        let exact = !word.isPrefix || text.dictionary.termLength(term) == match.exactLength
                        let base = CollectionRankKey.contribution(typos: match.typos, weight: 0, prefix: !exact)
                        for i in text.postingStarts[term]..<text.postingStarts[term + 1] {
                            let posting = postings[i]
                            let d = posting & SegmentText.documentMask
                            if index == 0 {
                                if let filterSet {
                                    if !filterSet.contains(d) { continue }
                                } else if accumulator.stamp[Int(d)] != accumulator.generation {
                                    // A document met for the first time: admitted only if live and passing the filter.
                                    if checkDeleted, part.deleted.contains(d) { continue }
                                    if let filter, !filter.matches(d) { continue }
                                }
                            }
                            let weight = UInt64(posting >> SegmentText.documentBits) << CollectionRankKey.weightShift
                            accumulator.record(d, word: mark, contribution: base | weight, missing: missing)
                        }
                    }
                }
                for phrase in plan.alternatives[index] {
                    recordSynonym(
                        phrase, mark: mark, missing: missing, text: text, postings: postings,
                        admission: index == 0 ? Admission(part: part, filter: filter, filterSet: filterSet, checkDeleted: checkDeleted) : nil,
                        accumulator: &accumulator)
                }
                if index == 0, accumulator.touchedCount == 0 { return }
            }
        }
    }

    /// What the first word's documents must pass to be admitted (the typed words' loop's checks).
    private struct Admission {
        let part: CollectionSnapshot.Part
        let filter: SegmentFilter?
        let filterSet: DocumentSet?
        let checkDeleted: Bool

        func admits(_ d: UInt32, accumulator: Accumulator) -> Bool {
            if let filterSet { return filterSet.contains(d) }
            if accumulator.stamp[Int(d)] == accumulator.generation { return true }
            if checkDeleted, part.deleted.contains(d) { return false }
            return filter?.matches(d) ?? true
        }
    }

    /// Records the documents holding every word of `phrase` (exactly: synonyms take no typo nor
    /// prefix) as matches of word `mark`, each marked as found through a synonym, so a hit on the
    /// typed words ranks first when all else is equal. A phrase's field weight is its lightest word's.
    private func recordSynonym(
        _ phrase: [[UInt16]], mark: UInt8, missing: UInt64, text: SegmentText, postings: UnsafeBufferPointer<UInt32>,
        admission: Admission?, accumulator: inout Accumulator
    ) {
        var terms: [Int] = []
        for units in phrase {
            let range = text.dictionary.prefixRange(units)
            guard let term = range.first, text.dictionary.termLength(term) == units.count else { return }
            terms.append(term)
        }
        let base = CollectionRankKey.contribution(typos: 0, weight: 0, prefix: false) | 1 << CollectionRankKey.synonymShift
        func record(_ d: UInt32, weight: UInt32) {
            if let admission, !admission.admits(d, accumulator: accumulator) { return }
            accumulator.record(d, word: mark, contribution: base | UInt64(weight) << CollectionRankKey.weightShift, missing: missing)
        }
        if terms.count == 1 {
            for i in text.postingStarts[terms[0]]..<text.postingStarts[terms[0] + 1] {
                record(postings[i] & SegmentText.documentMask, weight: postings[i] >> SegmentText.documentBits)
            }
            return
        }
        // A phrase: the documents of its first word, kept while each other word has them too.
        var found: [UInt32: UInt32] = [:]
        for (n, term) in terms.enumerated() {
            var next: [UInt32: UInt32] = [:]
            for i in text.postingStarts[term]..<text.postingStarts[term + 1] {
                let d = postings[i] & SegmentText.documentMask, weight = postings[i] >> SegmentText.documentBits
                if n == 0 {
                    next[d] = weight
                } else if let previous = found[d] {
                    next[d] = max(previous, weight)
                }
            }
            found = next
            if found.isEmpty { return }
        }
        for (d, weight) in found.sorted(by: { $0.key < $1.key }) { record(d, weight: weight) }
    }

    /// The documents of `segment` passing the query's filter (`filter`, compiled for it), deleted
    /// ones included; from the segment's cache when a recent query had the same filter.
    private func filterDocuments(_ filter: SegmentFilter?, of segment: CollectionSegment) -> DocumentSet? {
        guard let filter, let expression = query.filter else { return nil }
        return segment.filterSets.documents(for: expression) { filter.documents(count: segment.count) }
    }

    /// The sort keys, then relevance: the key's tier, then rank (higher first, missing last), then id.
    func order() -> (Ranked, Ranked) -> Bool {
        let parts = snapshot.parts
        let sort = sort
        return { a, b in
            if !sort.isEmpty {
                let order = sort.compare(a.keys, parts[Int(a.part)].segment, b.keys, parts[Int(b.part)].segment)
                if order != 0 { return order < 0 }
            }
            if a.tier != b.tier { return a.tier < b.tier }
            if a.part == b.part { return a.document < b.document }
            let (x, y) = (parts[Int(a.part)].segment, parts[Int(b.part)].segment)
            let order = CollectionSegment.rankOrder(x.rank(Int(a.document)), y.rank(Int(b.document)))
            if order != 0 { return order < 0 }
            return CollectionSegment.idPrecedes(x.ids[Int(a.document)], y.ids[Int(b.document)])
        }
    }

    private static func bodyKey(_ ranked: Ranked) -> UInt64 { UInt64(UInt32(bitPattern: ranked.part)) << 32 | UInt64(ranked.document) }

    /// The bodies of `candidates` by ``bodyKey(_:)``: a segment's in one call (bodies in a file
    /// are read a run of neighbours at a time, `SegmentBodies.bodies(_:)`).
    private func readBodies(_ candidates: ArraySlice<Ranked>) -> [UInt64: [UInt8]] {
        var byPart: [Int32: [Int]] = [:]
        for candidate in candidates { byPart[candidate.part, default: []].append(Int(candidate.document)) }
        var bodies: [UInt64: [UInt8]] = [:]
        bodies.reserveCapacity(candidates.count)
        for (part, documents) in byPart {
            for (d, body) in zip(documents, snapshot.parts[Int(part)].segment.bodies.bodies(documents)) {
                bodies[UInt64(UInt32(bitPattern: part)) << 32 | UInt64(d)] = body
            }
        }
        return bodies
    }

    private func hit(for ranked: Ranked, body: [UInt8], distanceFrom point: GeoPoint?, buffer: inout TokenBuffer) -> CollectionHit {
        let segment = snapshot.parts[Int(ranked.part)].segment
        let d = Int(ranked.document)
        var highlight: [String: [[Int]]] = [:]
        let highlightWords = plan.highlightWords
        if !words.isEmpty, let document = try? decoder.decode(body) {
            for (field, _) in layout.searched {
                var ranges: [[Int]] = []
                switch document.values[field] {
                case .string(let text)?:
                    ranges = Highlighter.ranges(in: text, words: highlightWords, earlyTypos: false, buffer: &buffer)
                case .strings(let texts)?:
                    for (index, text) in texts.enumerated() {
                        ranges += Highlighter.ranges(in: text, words: highlightWords, earlyTypos: false, buffer: &buffer).map { [index] + $0 }
                    }
                default: break
                }
                if !ranges.isEmpty { highlight[layout.schema.fields[field].name] = ranges }
            }
        }
        var distance: Double?
        if let point, let field = layout.geoField, case .geo(let column) = segment.columns[field] {
            distance = column.distance(ranked.document, from: point)
        }
        let missing = words.isEmpty ? 0 : CollectionRankKey.missing(ranked.tier)
        return CollectionHit(
            id: segment.ids[d], body: body, highlight: highlight, distance: distance,
            wordsMatched: words.count - missing, typos: CollectionRankKey.typos(ranked.tier))
    }
}

/// The 64-bit ranking key of a document for a collection query, lower first (the layout
/// `Accumulator` keeps): bits 60-63 words not matched; 54-59 typos; 46-53 the sum over words of
/// the weight of the heaviest field each matched (0 = the first searched field); 42-45 words
/// matched only as a prefix; 38-41 words matched only through a synonym; 0-31 the document
/// number (rank order within its segment).
enum CollectionRankKey {
    static let typoShift: UInt64 = RankKey.typoShift
    static let weightShift: UInt64 = 46
    static let prefixShift: UInt64 = 42
    static let synonymShift: UInt64 = 38

    static func contribution(typos: Int, weight: UInt32, prefix: Bool) -> UInt64 {
        UInt64(typos) << typoShift | UInt64(weight) << weightShift | (prefix ? 1 << prefixShift : 0)
    }

    static func tier(_ key: UInt64) -> UInt64 { key & ~0xFFFF_FFFF }
    static func missing(_ key: UInt64) -> Int { Int(key >> RankKey.missingShift) }
    static func typos(_ key: UInt64) -> Int { Int(key >> typoShift & 0x3F) }
}

/// How a text query applies its filter: by the cheaper way for each segment, or always one way.
enum TextFilterStrategy: Sendable, Hashable {
    case byCost
    case perDocument
    case asSet
}
