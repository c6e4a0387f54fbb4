import Base

/// Per-query working memory, reused across queries so the hot loops allocate nothing.
///
/// A scratch is used by one query at a time: `ScratchPool` hands it out and takes it back.
final class SearchScratch: @unchecked Sendable {
    /// Per-document state, sized for the largest core searched so far; owned (freed) here.
    var accumulator = Accumulator(capacity: 0)
    var matches: [TermMatch] = []
    var heap: [UInt64] = []
    /// The highlighter's working memory (`Highlighter.ranges`), kept across queries.
    var highlightBuffer = TokenBuffer()
    /// Match masks of the typo automaton by UTF-16 unit (`TypoState`); all zero between walks.
    let typoMasks: UnsafeMutablePointer<UInt64> = {
        let masks = UnsafeMutablePointer<UInt64>.allocate(capacity: 0x10000)
        masks.initialize(repeating: 0, count: 0x10000)
        return masks
    }()

    deinit {
        accumulator.deallocate()
        typoMasks.deallocate()
    }

    /// The accumulator, ready for a query over `documents` documents.
    func accumulator(documents: Int) -> Accumulator {
        if accumulator.capacity < documents {
            accumulator.deallocate()
            accumulator = Accumulator(capacity: documents)
        }
        accumulator.begin()
        return accumulator
    }
}

/// Per-document state of one query, in raw memory (no bounds or uniqueness checks in the hot
/// loop). A query copies it out of its scratch into a local variable and writes it back.
struct Accumulator {
    let capacity: Int
    /// `stamp[d] == generation` when document `d` has been seen by the current query.
    let stamp: UnsafeMutablePointer<UInt32>
    /// Ranking key of each seen document (see `RankKey`).
    let key: UnsafeMutablePointer<UInt64>
    /// Contribution of the current word to `key[d]`, and which word it belongs to.
    let wordContribution: UnsafeMutablePointer<UInt64>
    let wordMark: UnsafeMutablePointer<UInt8>
    /// Documents seen by the current query, in first-seen order: `touched[0..<touchedCount]`.
    let touchedStorage: UnsafeMutablePointer<UInt32>
    var touchedCount = 0
    var generation: UInt32 = 0

    init(capacity: Int) {
        self.capacity = capacity
        stamp = .allocate(capacity: max(capacity, 1))
        stamp.initialize(repeating: 0, count: max(capacity, 1))
        key = .allocate(capacity: max(capacity, 1))
        wordContribution = .allocate(capacity: max(capacity, 1))
        wordMark = .allocate(capacity: max(capacity, 1))
        touchedStorage = .allocate(capacity: max(capacity, 1))
    }

    func deallocate() {
        stamp.deallocate()
        key.deallocate()
        wordContribution.deallocate()
        wordMark.deallocate()
        touchedStorage.deallocate()
    }

    var touched: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: touchedStorage, count: touchedCount) }

    /// Starts a query.
    mutating func begin() {
        generation &+= 1
        if generation == 0 {
            stamp.update(repeating: 0, count: capacity)
            generation = 1
        }
        touchedCount = 0
    }

    /// Marks document `d` as seen without ranking it: 1 if it was new, else 0.
    @inline(__always)
    mutating func count(_ d: UInt32) -> Int {
        if stamp[Int(d)] == generation { return 0 }
        stamp[Int(d)] = generation
        return 1
    }

    /// Records that document `d` matches word `mark` (1-based) with `contribution`; the first word
    /// admits documents, later words only improve documents already admitted.
    @inline(__always)
    mutating func record(_ d: UInt32, word mark: UInt8, contribution: UInt64, missing: UInt64) {
        let doc = Int(d)
        if stamp[doc] != generation {
            guard mark == 1 else { return }
            stamp[doc] = generation
            key[doc] = missing << RankKey.missingShift | contribution | UInt64(d)
            wordContribution[doc] = contribution
            wordMark[doc] = mark
            touchedStorage[touchedCount] = d
            touchedCount += 1
        } else if wordMark[doc] != mark {
            wordMark[doc] = mark
            key[doc] = key[doc] - (1 << RankKey.missingShift) + contribution
            wordContribution[doc] = contribution
        } else if contribution < wordContribution[doc] {
            key[doc] = key[doc] - wordContribution[doc] + contribution
            wordContribution[doc] = contribution
        }
    }
}

/// Hands out scratches; a query takes one for its duration (one short lock each way).
final class ScratchPool: Sendable {
    private let free = Locked<[SearchScratch]>([])

    func withScratch<R>(_ body: (SearchScratch) -> R) -> R {
        let scratch = free.withLock { $0.popLast() } ?? SearchScratch()
        defer { free.withLock { $0.append(scratch) } }
        return body(scratch)
    }
}

/// A range of terms matching a query word with the same number of typos.
struct TermMatch {
    /// Positions in the term order of `view` (`TermViews`); in the sorted dictionary itself, they
    /// are the term numbers.
    var terms: Range<Int>
    var typos: Int
    /// Length a term of the range has when it equals the (corrected) word, -1 if none does: the
    /// others are prefix matches.
    var exactLength: Int
    var view: TermViews.View = .terms
    /// Terms whose unit at `excludedPosition` is `excludedUnit` are skipped (-1: none): another
    /// match finds them with fewer typos.
    var excludedPosition: Int = -1
    var excludedUnit: UInt16 = 0
}

/// The 64-bit ranking key of a document for a query: lower is better.
///
/// While postings are read: bits 60-63 words not matched; with several words, 54-59 typos, 50-53
/// words not matched exactly (see `IndexCore.search`) and 46-49 words matched only in an
/// alternate name; with one word, 32-45 the penalty of how it matched and of its typos
/// (`RankingRules`) and 27-28 its typos; 0-26 the document number (rank order). `final` then
/// turns bits 32-59 into the weighted rank: the penalties plus how many `RankLevel` steps the
/// document's rank is below the top; the typos, counted in it, are kept in bits 27-31 for the hit.
enum RankKey {
    static let missingShift: UInt64 = 60
    static let typoShift: UInt64 = 54
    static let prefixShift: UInt64 = 50
    static let alternateShift: UInt64 = 46
    static let penaltyShift: UInt64 = 32
    /// The typos of a final key, above the document number (documents are below 2^27; at most 2
    /// typos a word and `SearchQuery.Limits.maxWords` words fit in bits 27-31).
    static let typoCountShift: UInt64 = 27

    static func contribution(typos: Int, prefix: Bool, alternate: Bool) -> UInt64 {
        UInt64(typos) << typoShift | (prefix ? 1 << prefixShift : 0) | (alternate ? 1 << alternateShift : 0)
    }

    /// The key to sort by with several words: words, weighted rank (typos counted in it), typos,
    /// document number. `offset`: the document's `IndexCore.rankOffsets` entry; `severalWords`
    /// and `typoSteps`: `RankingRules.Levels`'. (With one word the penalty is already in place,
    /// bits 32-45, nothing above it but words: adding the offset is all.)
    @inline(__always)
    static func final(_ key: UInt64, offset: UInt64, severalWords: [UInt64], typoSteps: UInt64) -> UInt64 {
        // Bits 32-45 are free with several words; the penalty (at most 4,095 steps and 4,095 a typo
        // of at most 16) stays below bit 60 with the offset.
        let notWhole = key >> prefixShift & 0xF != 0 ? 2 : 0, inAlternate = key >> alternateShift & 0xF != 0 ? 1 : 0
        let typos = key >> typoShift & 0x3F
        let penalty = severalWords[notWhole | inAlternate] + typos &* typoSteps
        return (key & ~(1 << missingShift - 1) | penalty << penaltyShift | typos << typoCountShift | key & 0x07FF_FFFF) &+ offset
    }

    static func document(_ key: UInt64) -> Int { Int(key & 0x07FF_FFFF) }
    static func missing(_ key: UInt64) -> Int { Int(key >> missingShift) }
    /// The typos of a final key.
    static func typos(_ key: UInt64) -> Int { Int(key >> typoCountShift & 0x1F) }
    /// The key without the document number: the relevance tier.
    static func tier(_ key: UInt64) -> UInt64 { key & ~0xFFFF_FFFF }
}
