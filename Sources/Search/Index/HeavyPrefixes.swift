import Base
import Dispatch
import Foundation

/// Precomputed answers for short prefixes that match many documents ("s", "sa", "san"...):
/// their best documents and total, so the first keystrokes cost a lookup, not a scan of
/// tens of thousands of postings. Used for one-word prefix queries without filters.
struct HeavyPrefixes: Sendable {
    /// Which prefixes to precompute.
    struct Policy: Sendable, Hashable {
        /// Longest prefix, in UTF-16 units (at most 4: the key packs 4 units).
        var maxUnits = 4
        /// Precompute a prefix when its terms have at least this many postings.
        var minPostings = 1_000
        /// Best documents kept per prefix (answers pages up to this far).
        var keep = SearchQuery.Limits.maxLimit

        static let `default` = Policy()
    }

    struct Entry: Sendable {
        var keys: Range<Int>
        var total: Int
        var terms: Range<Int>
    }

    /// Documents having a term that starts with a given one- or two-unit prefix, as bitsets (all
    /// names, and the name only): a later query word of one or two letters ("san b", "la ba") is
    /// checked against them in one step per document. Keyed by `initialKey`.
    struct InitialBits: Sendable {
        var any: [UInt64]
        var name: [UInt64]
    }

    private(set) var entries: [UInt64: Entry] = [:]
    private(set) var keys: [UInt64] = []
    private(set) var initials: [UInt32: InitialBits] = [:]

    init() {}

    /// Calls `body` once for each distinct prefix of `length` units among the terms, with the
    /// range of terms that start with it (terms are sorted, so each prefix is one range).
    private static func forEachPrefix(length: Int, of core: IndexCore, _ body: ([UInt16], Range<Int>) -> Void) {
        var start = 0
        while start < core.termCount {
            guard core.termLength(start) >= length else {
                start += 1
                continue
            }
            let prefix = (0..<length).map { core.unit(start, $0) }
            let range = core.prefixRange(prefix)
            body(prefix, range)
            start = range.upperBound
        }
    }

    init(core: IndexCore, policy: Policy) {
        let maxUnits = min(policy.maxUnits, 4)
        guard maxUnits > 0 else { return }
        // Bitsets of one- and two-unit prefixes (two-unit ones only when very frequent: each costs
        // two bits per document).
        for length in 1...min(2, maxUnits) {
            Self.forEachPrefix(length: length, of: core) { prefix, range in
                let lo = Int(core.postingStarts[range.lowerBound]), hi = Int(core.postingStarts[range.upperBound])
                guard hi - lo >= policy.minPostings * (length == 1 ? 1 : 4), let key = Self.initialKey(prefix) else { return }
                let words = (core.count + 63) / 64
                var bits = InitialBits(any: [UInt64](repeating: 0, count: words), name: [UInt64](repeating: 0, count: words))
                for posting in core.postings[lo..<hi] {
                    let d = Int(posting & IndexCore.docMask)
                    bits.any[d >> 6] |= 1 << UInt64(d & 63)
                    if posting & IndexCore.inNameFlag != 0 { bits.name[d >> 6] |= 1 << UInt64(d & 63) }
                }
                initials[key] = bits
            }
        }
        // The frequent prefixes, then their answers computed by the general path, in parallel.
        var work: [(key: UInt64, prefix: [UInt16], terms: Range<Int>)] = []
        for length in 1...maxUnits {
            Self.forEachPrefix(length: length, of: core) { prefix, range in
                let postings = Int(core.postingStarts[range.upperBound] - core.postingStarts[range.lowerBound])
                if postings >= policy.minPostings, let key = Self.key(prefix) { work.append((key, prefix, range)) }
            }
        }
        let items = work
        let chunks = min(items.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        guard chunks > 0 else { return }
        let answers = Locked<[[CoreHits]]>(Array(repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let scratch = SearchScratch()
            let filter = CoreFilter(countryMask: nil, documentLimit: core.count, tombstones: [], tombstoneList: [])
            let hits = stride(from: chunk, to: items.count, by: chunks).map { i in
                let word = QueryWord(units: items[i].prefix, isPrefix: true, isCJK: false)
                return core.search([word], filter: filter, need: policy.keep, scratch: scratch, useHeavy: false)
            }
            answers.withLock { $0[chunk] = hits }
        }
        let computed = answers.withLock { $0 }
        for (i, item) in work.enumerated() {
            let hits = computed[i % chunks][i / chunks]
            entries[item.key] = Entry(keys: keys.count..<keys.count + hits.keys.count, total: hits.total, terms: item.terms)
            keys.append(contentsOf: hits.keys)
        }
    }

    /// Packs one or two units; nil otherwise.
    static func initialKey(_ units: [UInt16]) -> UInt32? {
        switch units.count {
        case 1: return UInt32(units[0]) << 16
        case 2: return UInt32(units[0]) << 16 | UInt32(units[1])
        default: return nil
        }
    }

    /// Packs up to 4 units; nil for longer prefixes.
    static func key(_ units: [UInt16]) -> UInt64? {
        guard units.count <= 4 else { return nil }
        var key: UInt64 = 0
        for i in 0..<4 { key = key << 16 | (i < units.count ? UInt64(units[i]) : 0) }
        return key
    }

    /// The precomputed answer for `prefix`, skipping tombstoned documents; nil when there is none
    /// or when too many of its documents are gone to fill `need`.
    func answer(_ prefix: [UInt16], need: Int, core: IndexCore, filter: CoreFilter) -> CoreHits? {
        guard let key = Self.key(prefix), let entry = entries[key] else { return nil }
        if filter.tombstoneList.isEmpty {
            guard need <= entry.keys.count || entry.keys.count == entry.total else { return nil }
            return CoreHits(keys: Array(keys[entry.keys.prefix(need)]), total: entry.total)
        }
        var result: [UInt64] = []
        for k in keys[entry.keys] where result.count < need {
            let d = RankKey.document(k)
            if filter.tombstones[d >> 6] & (1 << UInt64(d & 63)) == 0 { result.append(k) }
        }
        let gone = filter.tombstoneList.count { core.document(Int($0), hasTermIn: entry.terms) }
        guard result.count == need || entry.keys.count == entry.total else { return nil }
        return CoreHits(keys: result, total: entry.total - gone)
    }
}
