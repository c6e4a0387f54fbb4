import Base
import Dispatch
import Foundation

/// An immutable inverted index over a set of documents.
///
/// Documents are numbered by rank, highest first, so every postings list (sorted by document
/// number) is also in rank order and a minimum-rank filter is a cut-off. Terms are normalized
/// tokens in one sorted dictionary: the terms starting with a prefix are one contiguous range,
/// found by binary search, and so are their postings.
final class IndexCore: Sendable {
    /// Documents by number (rank descending).
    let documents: [Document]
    /// `documents[i].rank`, contiguous for the minimum-rank cut-off.
    let ranks: [Double]
    /// Country of each document as `CountryCode.index`, or `CountryCode.none`.
    let countries: [UInt16]

    /// Sorted terms: term `t` is `termUnits[termStarts[t]..<termStarts[t + 1]]` (folded UTF-16).
    let termUnits: [UInt16]
    let termStarts: [UInt32]
    /// The first four units of each term packed big-endian (0 past the end): binary searches on
    /// the first levels read this one compact array instead of two scattered ones.
    let termKeys: [UInt64]
    /// `runEnds[d - 1][t]`: one past the last term sharing the first `d + 1` units with term `t`
    /// (`d` = 1...3): the end of `t`'s child range under its depth-`d` node, so the typo walk steps
    /// from child to child near the root without binary searches.
    let runEnds: [[UInt32]]
    /// Postings of term `t`: `postings[postingStarts[t]..<postingStarts[t + 1]]`, ascending document
    /// numbers (bits 0-26) with how the term occurs in the document (bits 27-31, see `inNameFlag`).
    let postings: [UInt32]
    let postingStarts: [UInt32]
    /// Forward index: the terms of document `d` are `docTerms[docTermStarts[d]..<docTermStarts[d + 1]]`,
    /// with the same flags as postings in bits 30-31.
    let docTerms: [UInt32]
    let docTermStarts: [UInt32]
    /// `NameHash` of each name of two or more words of document `d`:
    /// `nameHashes[nameHashStarts[d]..<nameHashStarts[d + 1]]`.
    let nameHashes: [UInt64]
    let nameHashStarts: [UInt32]

    /// How far each document's rank is below the top, in `RankLevel` steps, shifted into the
    /// ranking key (`RankKey.final`).
    let rankOffsets: [UInt64]
    /// The terms in two more orders, for typos in the first two letters (see `TermViews`).
    let views: TermViews
    /// What each way of matching costs against the rank.
    let ranking: RankingRules.Levels

    /// Precomputed answers for short, frequent prefixes (see `HeavyPrefixes`).
    let heavy: HeavyPrefixes

    /// The term is in the document's main name (not only in alternate names).
    static let inNameFlag: UInt32 = 0x8000_0000
    /// The term is by itself a whole name or alternate name of the document.
    static let wholeNameFlag: UInt32 = 0x4000_0000
    /// The term is by itself the whole main name.
    static let wholeMainFlag: UInt32 = 0x2000_0000
    /// The term is the first word of the main name.
    static let startsNameFlag: UInt32 = 0x1000_0000
    /// The term is the first word of an alternate name.
    static let startsAlternateFlag: UInt32 = 0x0800_0000
    static let flagShift: UInt32 = 27
    static let docMask: UInt32 = 0x07FF_FFFF
    /// Most documents one core numbers (27 bits of a posting).
    static let maxDocuments = 1 << 27

    var count: Int { documents.count }
    var termCount: Int { termStarts.count - 1 }

    /// Builds the index, precomputed prefixes included; `documents` may come in any order.
    static func build(
        _ documents: [Document], heavyPolicy: HeavyPrefixes.Policy, ranking: RankingRules.Levels = RankingRules.Levels(.default)
    ) -> IndexCore {
        let plain = IndexCore(documents: documents, ranking: ranking)
        return IndexCore(plain, heavy: HeavyPrefixes(core: plain, policy: heavyPolicy))
    }

    private init(_ core: IndexCore, heavy: HeavyPrefixes) {
        documents = core.documents
        ranks = core.ranks
        countries = core.countries
        termUnits = core.termUnits
        termStarts = core.termStarts
        termKeys = core.termKeys
        runEnds = core.runEnds
        postings = core.postings
        postingStarts = core.postingStarts
        docTerms = core.docTerms
        docTermStarts = core.docTermStarts
        nameHashes = core.nameHashes
        nameHashStarts = core.nameHashStarts
        rankOffsets = core.rankOffsets
        views = core.views
        ranking = core.ranking
        self.heavy = heavy
    }

    /// Builds the index over documents of existing cores (`reindexed`: each core with the numbers of
    /// its documents to take, in order): their names are not tokenized again but read back from the
    /// cores' forward indexes (terms with their flags, name hashes), which hold exactly what
    /// tokenizing gives. A merge of layers or a rebuild of the base spent more than half its
    /// instructions tokenizing names already tokenized once (issue 27 part 4).
    static func build(
        reindexing reindexed: [(core: IndexCore, numbers: [Int])], heavyPolicy: HeavyPrefixes.Policy, ranking: RankingRules.Levels
    ) -> IndexCore {
        var documents: [Document] = [], sources: [TokenizedChunk.Source?] = []
        let count = reindexed.reduce(0) { $0 + $1.numbers.count }
        documents.reserveCapacity(count)
        sources.reserveCapacity(count)
        for (core, numbers) in reindexed {
            for number in numbers {
                documents.append(core.documents[number])
                sources.append(TokenizedChunk.Source(core: core, number: number))
            }
        }
        let plain = IndexCore(documents: documents, ranking: ranking, sources: sources)
        return IndexCore(plain, heavy: HeavyPrefixes(core: plain, policy: heavyPolicy))
    }

    /// `sources`: where each of `unordered` was indexed before (see ``build(reindexing:heavyPolicy:ranking:)``), or nil to tokenize.
    private init(documents unordered: [Document], ranking: RankingRules.Levels, sources: [TokenizedChunk.Source?]? = nil) {
        precondition(unordered.count <= Self.maxDocuments, "more than \(Self.maxDocuments) documents in one index")
        let unorderedRanks = unordered.map(\.rank)
        let order = unordered.indices.sorted { a, b in
            let (x, y) = (unorderedRanks[a], unorderedRanks[b])
            return x != y ? x > y : a < b
        }
        let documents = order.map { unordered[$0] }
        self.documents = documents
        ranks = documents.map(\.rank)
        rankOffsets = ranks.map { UInt64(RankLevel.max - RankLevel.of($0)) << RankKey.penaltyShift }
        self.ranking = ranking
        countries = documents.map { CountryCode.index(of: $0.countryCode) }

        // 1. Tokenize every name (in parallel, by chunks of documents), then intern the tokens;
        //    per document, its distinct terms with flags (`TokenizedChunk.tokenFlags`) and the hashes
        //    of its names of several words.
        let chunks = sources.map { sources in [TokenizedChunk(documents, copying: order.lazy.map { sources[$0] })] }
            ?? TokenizedChunk.tokenize(documents)
        var interner = TermInterner(expectedTerms: documents.count * 4)
        var provisional: [UInt32] = []  // term id << 5 | flags, grouped by document
        var provisionalStarts: [UInt32] = [0]
        provisional.reserveCapacity(documents.count * 8)
        provisionalStarts.reserveCapacity(documents.count + 1)
        var nameHashes: [UInt64] = []
        var nameHashStarts: [UInt32] = [0]
        nameHashStarts.reserveCapacity(documents.count + 1)
        var local: [UInt32] = []
        for chunk in chunks {
            var token = 0, hash = 0
            for d in chunk.documentTokenEnds.indices {
                local.removeAll(keepingCapacity: true)
                while token < Int(chunk.documentTokenEnds[d]) {
                    let start = token == 0 ? 0 : Int(chunk.tokenEnds[token - 1])
                    let id = interner.intern(chunk.units[start..<Int(chunk.tokenEnds[token])])
                    local.append(id << 5 | UInt32(chunk.tokenFlags[token]))
                    token += 1
                }
                local.sort()
                var previous = UInt32.max
                for entry in local {
                    if previous != .max, entry >> 5 == previous >> 5 {
                        provisional[provisional.count - 1] |= entry & 0x1F
                    } else {
                        provisional.append(entry)
                    }
                    previous = entry
                }
                provisionalStarts.append(UInt32(provisional.count))
                while hash < Int(chunk.documentHashEnds[d]) {
                    nameHashes.append(chunk.nameHashes[hash])
                    hash += 1
                }
                nameHashStarts.append(UInt32(nameHashes.count))
            }
        }
        self.nameHashes = nameHashes
        self.nameHashStarts = nameHashStarts

        // 2. Sort the terms; renumber.
        let termCount = interner.count
        var sortKeys = [(key: UInt64, id: UInt32)]()
        sortKeys.reserveCapacity(termCount)
        interner.arena.withUnsafeBufferPointer { arena in
            for id in 0..<termCount {
                let start = Int(interner.starts[id]), end = Int(interner.starts[id + 1])
                var key: UInt64 = 0
                for i in 0..<4 { key = key << 16 | (start + i < end ? UInt64(arena[start + i]) : 0) }
                sortKeys.append((key, UInt32(id)))
            }
            sortKeys.sort { a, b in
                if a.key != b.key { return a.key < b.key }
                let x = arena[Int(interner.starts[Int(a.id)])..<Int(interner.starts[Int(a.id) + 1])]
                let y = arena[Int(interner.starts[Int(b.id)])..<Int(interner.starts[Int(b.id) + 1])]
                return x.lexicographicallyPrecedes(y)
            }
        }
        var renumber = [UInt32](repeating: 0, count: termCount)
        var termUnits: [UInt16] = []
        termUnits.reserveCapacity(interner.arena.count)
        var termStarts: [UInt32] = [0]
        termStarts.reserveCapacity(termCount + 1)
        for (sorted, entry) in sortKeys.enumerated() {
            renumber[Int(entry.id)] = UInt32(sorted)
            termUnits.append(contentsOf: interner.units(of: Int(entry.id)))
            termStarts.append(UInt32(termUnits.count))
        }
        self.termUnits = termUnits
        self.termStarts = termStarts
        termKeys = sortKeys.map(\.key)
        runEnds = Self.runEnds(termKeys)

        // 3. Postings (counting sort by term; documents visited in order keep each list sorted).
        var docTerms = [UInt32](repeating: 0, count: provisional.count)
        for (i, entry) in provisional.enumerated() {
            docTerms[i] = renumber[Int(entry >> 5)] | (entry & 0x1F) << Self.flagShift
        }
        (postings, postingStarts) = Self.postings(docTerms: docTerms, docTermStarts: provisionalStarts, termCount: termCount)
        self.docTerms = docTerms
        self.docTermStarts = provisionalStarts
        views = TermViews(termUnits: termUnits, termStarts: termStarts, termKeys: termKeys)
        self.heavy = HeavyPrefixes()
    }

    /// A core from its parts, without precomputed prefixes: what a merge of cores makes
    /// (`IndexCore+Merge.swift`). `documents` by rank, the terms sorted, `docTerms` with flags.
    init(
        documents: [Document], ranks: [Double], rankOffsets: [UInt64], countries: [UInt16],
        termUnits: [UInt16], termStarts: [UInt32], termKeys: [UInt64], docTerms: [UInt32], docTermStarts: [UInt32],
        nameHashes: [UInt64], nameHashStarts: [UInt32], views: TermViews, ranking: RankingRules.Levels
    ) {
        self.documents = documents
        self.ranks = ranks
        self.rankOffsets = rankOffsets
        self.countries = countries
        self.termUnits = termUnits
        self.termStarts = termStarts
        self.termKeys = termKeys
        runEnds = Self.runEnds(termKeys)
        (postings, postingStarts) = Self.postings(docTerms: docTerms, docTermStarts: docTermStarts, termCount: termKeys.count)
        self.docTerms = docTerms
        self.docTermStarts = docTermStarts
        self.nameHashes = nameHashes
        self.nameHashStarts = nameHashStarts
        self.views = views
        self.ranking = ranking
        heavy = HeavyPrefixes()
    }

    /// `runEnds` of sorted terms with these packed keys.
    private static func runEnds(_ termKeys: [UInt64]) -> [[UInt32]] {
        let termCount = termKeys.count
        return (1...3).map { depth in
            let shift = UInt64(16 * (3 - depth))
            var ends = [UInt32](repeating: 0, count: termCount)
            var t = termCount - 1
            while t >= 0 {
                let same = t + 1 < termCount && termKeys[t + 1] >> shift == termKeys[t] >> shift
                ends[t] = same ? ends[t + 1] : UInt32(t + 1)
                t -= 1
            }
            return ends
        }
    }

    /// The postings of a forward index (a counting sort by term: documents visited in order keep
    /// each list sorted), each with the flags its document's entry has.
    private static func postings(docTerms: [UInt32], docTermStarts: [UInt32], termCount: Int) -> (postings: [UInt32], starts: [UInt32]) {
        var starts = [UInt32](repeating: 0, count: termCount + 1)
        for entry in docTerms { starts[Int(entry & docMask) + 1] += 1 }
        for t in 0..<termCount { starts[t + 1] += starts[t] }
        var fill = starts
        var postings = [UInt32](repeating: 0, count: docTerms.count)
        for d in 0..<docTermStarts.count - 1 {
            for i in Int(docTermStarts[d])..<Int(docTermStarts[d + 1]) {
                let entry = docTerms[i]
                let term = Int(entry & docMask)
                postings[Int(fill[term])] = UInt32(d) | entry & ~docMask
                fill[term] += 1
            }
        }
        return (postings, starts)
    }

    // MARK: Terms

    @inline(__always) func termLength(_ term: Int) -> Int {
        Int(termStarts[term + 1] - termStarts[term])
    }

    @inline(__always) func unit(_ term: Int, _ position: Int) -> UInt16 {
        position < 4
            ? UInt16(truncatingIfNeeded: termKeys[term] >> UInt64(48 - 16 * position))
            : termUnits[Int(termStarts[term]) + position]
    }

    func termString(_ term: Int) -> String {
        String(decoding: termUnits[Int(termStarts[term])..<Int(termStarts[term + 1])], as: UTF16.self)
    }

    /// Compares term `term` with `word` (`wordKey`: its first four units packed like `termKeys`),
    /// looking at most at `word.count` units when `prefixOnly`.
    @inline(__always)
    private func compare(_ term: Int, _ word: [UInt16], wordKey: UInt64, prefixOnly: Bool) -> Int {
        let packed = min(word.count, 4)
        let mask: UInt64 = packed == 0 ? 0 : ~0 << UInt64(16 * (4 - packed))
        let key = termKeys[term] & mask
        if key != wordKey & mask { return key < wordKey & mask ? -1 : 1 }
        let start = Int(termStarts[term]), length = termLength(term)
        let n = min(length, word.count)
        var i = packed
        while i < n {
            let a = termUnits[start + i], b = word[i]
            if a != b { return a < b ? -1 : 1 }
            i += 1
        }
        if length == word.count || (prefixOnly && length > word.count) { return 0 }
        return length < word.count ? -1 : 1
    }

    /// The range of terms that start with `word`.
    func prefixRange(_ word: [UInt16]) -> Range<Int> {
        var wordKey: UInt64 = 0
        for i in 0..<4 { wordKey = wordKey << 16 | (i < word.count ? UInt64(word[i]) : 0) }
        var lo = 0, hi = termCount
        while lo < hi {  // first term >= word
            let mid = (lo + hi) / 2
            if compare(mid, word, wordKey: wordKey, prefixOnly: false) < 0 { lo = mid + 1 } else { hi = mid }
        }
        let start = lo
        hi = termCount
        while lo < hi {  // first term past the prefix
            let mid = (lo + hi) / 2
            if compare(mid, word, wordKey: wordKey, prefixOnly: true) == 0 { lo = mid + 1 } else { hi = mid }
        }
        return start..<lo
    }

    /// The term equal to `word`, if any.
    func exactTerm(_ word: [UInt16]) -> Int? {
        let range = prefixRange(word)
        guard let first = range.first, termLength(first) == word.count else { return nil }
        return first
    }

    /// The number of documents (highest ranks first) whose rank is at least `minRank`.
    func documentsRanked(atLeast minRank: Double) -> Int {
        var lo = 0, hi = ranks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ranks[mid] >= minRank { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Whether document `d` has a name of several words with this `NameHash`.
    func document(_ d: Int, hasNameHash hash: UInt64) -> Bool {
        nameHashes[Int(nameHashStarts[d])..<Int(nameHashStarts[d + 1])].contains(hash)
    }

    /// Whether document `d` has a term in `terms`.
    func document(_ d: Int, hasTermIn terms: Range<Int>) -> Bool {
        for i in Int(docTermStarts[d])..<Int(docTermStarts[d + 1]) where terms.contains(Int(docTerms[i] & Self.docMask)) {
            return true
        }
        return false
    }
}

/// Identifies a name by its normalized words, to tell a query that is a whole name ("new york")
/// from one that only starts names or matches some of their words.
enum NameHash {
    static func hash(_ words: some Sequence<some Collection<UInt16>>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for word in words {
            for unit in word { hash = (hash ^ UInt64(unit)) &* 0x100_0000_01b3 }
            hash = (hash ^ 0xFFFF_FFFF) &* 0x100_0000_01b3
        }
        return hash
    }
}

/// The tokens of a run of documents, produced in parallel before interning.
struct TokenizedChunk: Sendable {
    var units: [UInt16] = []
    /// End (in `units`) of each token, and its flags: `IndexCore`'s posting flags shifted down by
    /// `flagShift` (bit 4: in the main name, 3: a whole name, 2: the whole main name, 1: first word
    /// of the main name, 0: first word of an alternate name).
    var tokenEnds: [UInt32] = []
    var tokenFlags: [UInt8] = []
    /// Per document: end of its tokens, end of its name hashes (sorted, distinct).
    var documentTokenEnds: [UInt32] = []
    var nameHashes: [UInt64] = []
    var documentHashEnds: [UInt32] = []

    init(_ documents: ArraySlice<Document>) {
        var buffer = TokenBuffer()
        var hashes: [UInt64] = []
        for document in documents { append(tokenizing: document, buffer: &buffer, hashes: &hashes) }
    }

    /// Appends the tokens of `document`'s names (`buffer` and `hashes`: scratch space).
    private mutating func append(tokenizing document: Document, buffer: inout TokenBuffer, hashes: inout [UInt64]) {
        hashes.removeAll(keepingCapacity: true)
        for index in 0...document.alternateNames.count {
            Normalizer.scan(index == 0 ? document.name : document.alternateNames[index - 1], into: &buffer)
            let main = index == 0, whole = buffer.spans.count == 1
            for (position, span) in buffer.spans.enumerated() {
                units.append(contentsOf: buffer.units(of: span))
                tokenEnds.append(UInt32(units.count))
                var flags: UInt8 = (main ? 0x10 : 0) | (whole ? 0x08 : 0) | (main && whole ? 0x04 : 0)
                if position == 0 { flags |= main ? 0x02 : 0x01 }
                tokenFlags.append(flags)
            }
            if buffer.spans.count > 1 { hashes.append(NameHash.hash(buffer.spans.map { buffer.units(of: $0) })) }
        }
        documentTokenEnds.append(UInt32(tokenEnds.count))
        hashes.sort()
        var last: UInt64?
        for hash in hashes where hash != last {
            nameHashes.append(hash)
            last = hash
        }
        documentHashEnds.append(UInt32(nameHashes.count))
    }

    /// A document as an existing core indexed it: its number there.
    struct Source: Sendable {
        let core: IndexCore
        let number: Int
    }

    /// The tokens of `documents`: of each with a source as its core holds them (each distinct
    /// term once, with the flags of all its occurrences: what interning the tokens one by one
    /// makes of them, and the name hashes), of the others tokenized.
    init(_ documents: [Document], copying sources: some Sequence<Source?>) {
        var buffer = TokenBuffer()
        var hashes: [UInt64] = []
        for (document, source) in zip(documents, sources) {
            guard let source else {
                append(tokenizing: document, buffer: &buffer, hashes: &hashes)
                continue
            }
            let core = source.core, d = source.number
            for i in Int(core.docTermStarts[d])..<Int(core.docTermStarts[d + 1]) {
                let entry = core.docTerms[i]
                let term = Int(entry & IndexCore.docMask)
                units.append(contentsOf: core.termUnits[Int(core.termStarts[term])..<Int(core.termStarts[term + 1])])
                tokenEnds.append(UInt32(units.count))
                tokenFlags.append(UInt8(truncatingIfNeeded: entry >> IndexCore.flagShift))
            }
            documentTokenEnds.append(UInt32(tokenEnds.count))
            nameHashes.append(contentsOf: core.nameHashes[Int(core.nameHashStarts[d])..<Int(core.nameHashStarts[d + 1])])
            documentHashEnds.append(UInt32(nameHashes.count))
        }
    }

    /// Tokenizes `documents` on all cores, in order.
    static func tokenize(_ documents: [Document]) -> [TokenizedChunk] {
        // A write's run (a few documents): on this thread, no dispatch to wake the pool for.
        if documents.count < 4_096 { return [TokenizedChunk(documents[...])] }
        let count = max(1, ProcessInfo.processInfo.activeProcessorCount) * 4
        let size = (documents.count + count - 1) / max(count, 1)
        let results = Locked<[TokenizedChunk?]>(Array(repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let range = min(i * size, documents.count)..<min((i + 1) * size, documents.count)
            let chunk = TokenizedChunk(documents[range])
            results.withLock { $0[i] = chunk }
        }
        return results.withLock { $0.compactMap { $0 } }
    }
}
