import Base

/// A thread-safe, in-memory search index over `Document`s.
///
/// Reads work on an immutable snapshot taken under a very short lock, so a query never waits for
/// a write to finish. A write builds the next snapshot and swaps it in; writes are serialized.
/// The snapshot is in layers (`Snapshot`): a write indexes its own documents and merges them
/// into the small delta of the latest changes; past `Configuration.maxPendingChanges` of them, the delta becomes a middle
/// layer of its own, and the newest middle layers merge two by two as they grow (a binary
/// counter, so a document is re-indexed a few times, not at every delta); past
/// `maxMiddleDocuments` in the middle layers (or `maxBaseTombstones` base documents hidden), the
/// writer rebuilds the base from all documents (readers keep using the old snapshot meanwhile).
/// So a steady stream of writes costs a small share of a base rebuild each, not a rebuild every
/// thousand changes.
public final class SearchIndex: Sendable {
    /// Tuning; the defaults suit the 235,000-city set.
    public struct Configuration: Sendable, Hashable {
        /// Changed documents kept in the delta (copied by every write's merge) before they become a
        /// middle layer. Default 32: with the middle layers merged two by two, a smaller delta
        /// costs a write less (128 re-indexed about 64 documents a write, a third of a `PUT`'s
        /// instructions one at a time) for one or two more middle layers.
        public var maxPendingChanges: Int = 32
        /// Documents in the middle layers before the base is rebuilt with them. Default 8,192.
        public var maxMiddleDocuments: Int = 8_192
        /// Base documents hidden (replaced or deleted) before the base is rebuilt: a precomputed
        /// prefix's answer counts the hidden ones it held on every query. Default 2,048.
        public var maxBaseTombstones: Int = 2_048
        /// Prefixes of up to this many UTF-16 units (at most 4) get precomputed answers. Default 4.
        public var precomputedPrefixLength: Int = 4
        /// ... when their terms have at least this many postings. Default 1,000.
        public var precomputedPrefixMinPostings: Int = 1_000
        /// What each way of matching costs against the rank (`RankingRules`).
        public var ranking = RankingRules.default

        public init() {}

        var heavyPolicy: HeavyPrefixes.Policy {
            HeavyPrefixes.Policy(maxUnits: precomputedPrefixLength, minPostings: precomputedPrefixMinPostings)
        }
    }

    private let configuration: Configuration
    private let current: Locked<Snapshot>
    /// One write at a time (and their count). Not a `Locked<Void>`: ThreadSanitizer reported a
    /// Swift access race between two `withLock` calls of one such lock, one of them holding it
    /// (`ChangeTests.concurrentReadersAndWriters`, 26 Nov); a zero-sized state has no bytes of
    /// its own, and its access most likely aliased the lock object's first bytes.
    private let writer = Locked<UInt64>(0)
    private let scratches = ScratchPool()

    /// Indexes `documents`; for a repeated id the last document wins.
    public init(documents: [Document], configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var seen = [String: Int](minimumCapacity: documents.count)
        for (index, document) in documents.enumerated() { seen[document.id] = index }
        let unique = seen.count == documents.count
            ? documents : documents.enumerated().filter { seen[$0.element.id] == $0.offset }.map(\.element)
        current = Locked(Snapshot(
            documents: unique, policy: configuration.heavyPolicy, ranking: RankingRules.Levels(configuration.ranking), version: 0))
    }

    /// The current state; what each read works on.
    var snapshot: Snapshot { current.withLock { $0 } }

    /// Number of documents.
    public var count: Int { snapshot.count }

    /// Incremented by every change (upsert or successful delete).
    public var version: UInt64 { snapshot.version }

    /// The document with this id.
    public func document(id: String) -> Document? { snapshot.document(id: id) }

    /// Every document (base documents by rank, then recent changes); for tests and the fuzzer.
    func allDocuments() -> [Document] { snapshot.allDocuments }

    /// Adds `document` or replaces the one with its id; visible to the next query.
    /// Callers should `validate()` it first.
    public func upsert(_ document: Document) {
        write { $0.applying([(id: document.id, document: document)]) }
    }

    /// Makes `changes` in order as one write (a document upserts its id, nil deletes it): the next
    /// snapshot is built once for all of them, so a batch costs one merge into the small delta
    /// index instead of one per document. Visible to the next query, all at once.
    public func apply(_ changes: [(id: String, document: Document?)]) {
        guard !changes.isEmpty else { return }
        write { $0.applying(changes) }
    }

    /// Removes the document with this id; returns it, or nil if there was none.
    @discardableResult
    public func delete(id: String) -> Document? {
        var removed: Document?
        write { snapshot in
            removed = snapshot.document(id: id)
            return removed == nil ? nil : snapshot.applying([(id: id, document: nil)])
        }
        return removed
    }

    private func write(_ change: (Snapshot) -> Snapshot?) {
        writer.withLock { writes in
            writes &+= 1
            guard var next = change(snapshot) else { return }
            if next.pending.count > configuration.maxPendingChanges { next = next.mergingDelta() }
            if next.middleDocuments > configuration.maxMiddleDocuments
                || next.base.tombstoneList.count > configuration.maxBaseTombstones
            {
                next = next.rebuilt(policy: configuration.heavyPolicy)
            }
            let swapped = next
            current.withLock { $0 = swapped }
        }
    }

    /// Runs `query`.
    public func search(_ query: SearchQuery) -> SearchResult {
        search(ParsedQuery(query), text: query.text)
    }

    /// Runs a query normalized beforehand (its words are not normalized again).
    public func search(_ prepared: PreparedQuery) -> SearchResult {
        search(prepared.parsed, text: prepared.query.text)
    }

    /// Runs `query` on `snapshot` (one of this index's or one made like them; for tests).
    func search(_ query: SearchQuery, in snapshot: Snapshot) -> SearchResult {
        search(ParsedQuery(query), text: query.text, in: snapshot)
    }

    private func search(_ parsed: ParsedQuery, text: String) -> SearchResult {
        search(parsed, text: text, in: snapshot)
    }

    private func search(_ parsed: ParsedQuery, text: String, in snapshot: Snapshot) -> SearchResult {
        guard !parsed.words.isEmpty else { return SearchResult(query: text, total: 0, hits: []) }
        let need = parsed.offset + parsed.limit
        return scratches.withScratch { scratch in
            let base = snapshot.base.core.search(parsed.words, filter: snapshot.base.filter(for: parsed), need: need, scratch: scratch)
            var buffer = TokenBuffer()
            swap(&buffer, &scratch.highlightBuffer)  // moved out, not shared: no copy, one access check
            defer { swap(&buffer, &scratch.highlightBuffer) }
            guard !snapshot.middles.isEmpty || snapshot.delta.count > 0 else {
                // One layer (no write since the last rebuild): every hit is the base's.
                let core = snapshot.base.core
                let hits = base.keys.dropFirst(parsed.offset).map { key in
                    hit(key, core: core, parsed, earlyTypos: base.earlyTypos, buffer: &buffer)
                }
                return SearchResult(query: text, total: base.total, hits: hits)
            }
            // The layers' hits merged by tier, then rank; equal ones keep the older layer's first.
            var merged = base.keys.map { (key: $0, core: snapshot.base.core, layer: 0) }
            var total = base.total, earlyTypos = base.earlyTypos
            let middles = snapshot.middles.enumerated().map { (1 + $0.offset, $0.element.core, $0.element.filter(for: parsed)) }
            for (layer, core, filter) in middles + [(1 + middles.count, snapshot.delta, snapshot.delta.filter(for: parsed))]
            where core.count > 0 {
                let hits = core.search(parsed.words, filter: filter, need: need, scratch: scratch)
                merged += hits.keys.map { (key: $0, core: core, layer: layer) }
                total += hits.total
                earlyTypos = earlyTypos || hits.earlyTypos
            }
            merged.sort { a, b in
                let (x, y) = (RankKey.tier(a.key), RankKey.tier(b.key))
                if x != y { return x < y }
                let (r, s) = (a.core.ranks[RankKey.document(a.key)], b.core.ranks[RankKey.document(b.key)])
                if r != s { return r > s }
                return a.layer == b.layer ? a.key < b.key : a.layer < b.layer
            }
            let hits = merged.prefix(need).dropFirst(parsed.offset).map { entry in
                hit(entry.key, core: entry.core, parsed, earlyTypos: earlyTypos, buffer: &buffer)
            }
            return SearchResult(query: text, total: total, hits: hits)
        }
    }

    /// The hit of ranking key `key` of `core`, its name highlighted.
    private func hit(_ key: UInt64, core: IndexCore, _ parsed: ParsedQuery, earlyTypos: Bool, buffer: inout TokenBuffer) -> Hit {
        let document = core.documents[RankKey.document(key)]
        return Hit(
            document: document,
            highlight: Highlighter.ranges(in: document.name, words: parsed.words, typos: RankKey.typos(key) > 0,
                earlyTypos: earlyTypos, buffer: &buffer),
            wordsMatched: parsed.words.count - RankKey.missing(key), typos: RankKey.typos(key))
    }
}
