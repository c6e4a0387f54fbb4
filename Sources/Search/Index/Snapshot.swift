/// One immutable state of a `SearchIndex`, in layers so that no write re-indexes much: a large
/// base core built rarely (with precomputed prefixes), middle cores that collect the documents
/// changed since, and a small delta core of the newest changes (rebuilt on each write). Every
/// `maxPendingChanges` changes the delta becomes a middle core of its own, and the newest middle
/// cores merge while the newer is at least as large as the one before it (a binary counter): a
/// document is re-indexed about log2(middle documents / delta size) times on its way to the base,
/// not once per delta as with one middle core, which cost most of a replica's applying (issue 27
/// part 4). A document is visible in at most one layer; the older layers hide the versions
/// replaced or deleted since they were built (tombstones).
final class Snapshot: Sendable {
    let base: IndexLayer
    /// Oldest (largest) first.
    let middles: [IndexLayer]
    /// Documents upserted since the newest middle layer was built, by id, and their index.
    let pending: [String: Document]
    let delta: IndexCore
    let version: UInt64

    init(base: IndexLayer, middles: [IndexLayer], pending: [String: Document], delta: IndexCore, version: UInt64) {
        self.base = base
        self.middles = middles
        self.pending = pending
        self.delta = delta
        self.version = version
    }

    /// A fresh snapshot over `documents` (ids unique), all in the base.
    convenience init(documents: [Document], policy: HeavyPrefixes.Policy, ranking: RankingRules.Levels, version: UInt64) {
        let base = IndexLayer(IndexCore.build(documents, heavyPolicy: policy, ranking: ranking))
        let empty = Self.deltaCore([], ranking: ranking)
        self.init(base: base, middles: [], pending: [:], delta: empty, version: version)
    }

    /// A core without precomputed prefixes over `documents`, sorted by id first so that equal
    /// ranks keep a stable order.
    static func deltaCore(_ documents: [Document], ranking: RankingRules.Levels) -> IndexCore {
        IndexCore.build(documents.sorted { $0.id < $1.id }, heavyPolicy: HeavyPrefixes.Policy(maxUnits: 0), ranking: ranking)
    }

    var ranking: RankingRules.Levels { base.core.ranking }

    var count: Int { base.liveCount + middles.reduce(0) { $0 + $1.liveCount } + pending.count }

    /// Documents in the middle layers' cores, hidden ones included (what a base rebuild would take in).
    var middleDocuments: Int { middles.reduce(0) { $0 + $1.core.count } }

    func document(id: String) -> Document? {
        if let document = pending[id] { return document }
        for middle in middles.reversed() { if let document = middle.document(id: id) { return document } }
        return base.document(id: id)
    }

    /// Every live document: the base's by rank, then each middle layer's by rank (oldest first), then the delta's by id.
    var allDocuments: [Document] {
        base.liveDocuments + middles.flatMap(\.liveDocuments) + pending.values.sorted { $0.id < $1.id }
    }

    /// ``allDocuments`` rebuilt as a base (precomputed prefixes by `policy`), their terms read back
    /// from the layers' cores instead of tokenizing every name again.
    func rebuilt(policy: HeavyPrefixes.Policy) -> Snapshot {
        var deltaNumbers: [String: Int] = [:]
        for (number, document) in delta.documents.enumerated() { deltaNumbers[document.id] = number }
        let pendingNumbers = pending.values.sorted { $0.id < $1.id }.compactMap { deltaNumbers[$0.id] }
        guard pendingNumbers.count == pending.count, deltaNumbers.count == delta.count else {
            // Two pending documents with one id (filed under others): tokenized again, as before.
            return Snapshot(documents: allDocuments, policy: policy, ranking: ranking, version: version)
        }
        let core = IndexCore.build(
            reindexing: [(base.core, base.liveNumbers)] + middles.map { ($0.core, $0.liveNumbers) } + [(delta, pendingNumbers)],
            heavyPolicy: policy, ranking: ranking)
        return Snapshot(base: IndexLayer(core), middles: [], pending: [:], delta: Self.deltaCore([], ranking: ranking), version: version)
    }

    /// This snapshot with `changes` made in order (a document upserts its id, nil deletes it) and
    /// the delta rebuilt once for all of them; nil when none changes anything (deletes of unknown ids).
    func applying(_ changes: [(id: String, document: Document?)]) -> Snapshot? {
        var base = base, middles = middles, pending = pending
        var made: UInt64 = 0
        var deltaChanged = false
        for (id, document) in changes {
            // Visible in one layer at most: the base's or middle's version is hidden for good.
            var hidden = base.hide(id)
            for layer in middles.indices.reversed() where !hidden { hidden = middles[layer].hide(id) }
            if let document {
                pending[id] = document
                deltaChanged = true
                made += 1
            } else if pending.removeValue(forKey: id) != nil {
                deltaChanged = true
                made += 1
            } else if hidden {
                made += 1
            }
        }
        guard made > 0 else { return nil }
        let delta = deltaChanged ? deltaCore(pending, changed: changes) : delta
        return Snapshot(base: base, middles: middles, pending: pending, delta: delta, version: version + made)
    }

    /// The delta over `pending` after `changes`: the documents this delta holds and `changes` left
    /// alone are read back from it, only the changed ones tokenized (a write's run is a few
    /// documents, the delta up to `maxPendingChanges`: tokenizing them all again was most of its
    /// rebuild). The same core as ``deltaCore(_:ranking:)`` builds.
    private func deltaCore(_ pending: [String: Document], changed changes: [(id: String, document: Document?)]) -> IndexCore {
        var held = [String: Int](minimumCapacity: delta.count)
        for (number, document) in delta.documents.enumerated() { held[document.id] = number }
        // Two documents with one id (filed under other ids by a caller): all tokenized, as before.
        if held.count != delta.count { held = [:] }
        for change in changes { held[change.id] = nil }
        let documents = pending.sorted { $0.value.id < $1.value.id }
        return IndexCore.build(
            documents.map(\.value),
            sources: documents.map { id, document in
                held[id].flatMap { document.id == id ? TokenizedChunk.Source(core: delta, number: $0) : nil }
            },
            ranking: ranking)
    }

    /// The delta's documents moved into a middle layer of their own; then the two newest middle
    /// layers merge while the newer has at least as many live documents as the older.
    /// The delta's core is the new layer's as it is: it indexes exactly the pending documents.
    /// A merge reads its documents' terms back from the two layers' cores (no tokenizing).
    func mergingDelta() -> Snapshot {
        var middles = middles
        middles.append(IndexLayer(delta))
        while middles.count >= 2, middles[middles.count - 1].liveCount >= middles[middles.count - 2].liveCount {
            let newer = middles.removeLast(), older = middles.removeLast()
            // The older layer's documents first: equal ranks keep the order they had across the two.
            middles.append(IndexLayer(IndexCore.build(
                reindexing: [(older.core, older.liveNumbers), (newer.core, newer.liveNumbers)],
                heavyPolicy: HeavyPrefixes.Policy(maxUnits: 0), ranking: ranking)))
        }
        return Snapshot(base: base, middles: middles, pending: [:], delta: Self.deltaCore([], ranking: ranking), version: version)
    }
}
