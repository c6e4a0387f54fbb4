/// One immutable state of a `SearchIndex`, in layers so that no write re-indexes much: a large
/// base core built rarely (with precomputed prefixes), middle cores that collect the documents
/// changed since, and a small delta core of the newest changes (each write's run merged into it,
/// ``applying(_:)``). Every `maxPendingChanges` changes the delta becomes a middle core of its
/// own, and the newest middle cores merge while the newer is at least as large as the one before
/// it (a binary counter): a document is merged about log2(middle documents / delta size) times on
/// its way to the base, not once per delta as with one middle core, which cost most of a
/// replica's applying (issue 27 part 4). A document is visible in at most one layer; the older layers hide the versions
/// replaced or deleted since they were built (tombstones).
final class Snapshot: Sendable {
    let base: IndexLayer
    /// Oldest (largest) first.
    let middles: [IndexLayer]
    /// Documents upserted since the newest middle layer was built, by id, and their index.
    let pending: [String: Document]
    let delta: IndexCore
    let version: UInt64
    /// Every pending document is filed under its own id, so the delta's documents are ordered by
    /// rank, then id, with no id twice: a run can be merged into it (``applying(_:)``). A caller
    /// may file a document under another id; the delta is then built from all of them, as before.
    let pendingFiledByID: Bool

    init(base: IndexLayer, middles: [IndexLayer], pending: [String: Document], delta: IndexCore, version: UInt64, pendingFiledByID: Bool = true) {
        self.base = base
        self.middles = middles
        self.pending = pending
        self.delta = delta
        self.version = version
        self.pendingFiledByID = pendingFiledByID
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
    /// the run merged into the delta once for all of them; nil when none changes anything (deletes
    /// of unknown ids).
    func applying(_ changes: [(id: String, document: Document?)]) -> Snapshot? {
        var base = base, middles = middles, pending = pending
        var made: UInt64 = 0
        var deltaChanged = false, filedByID = pendingFiledByID
        for (id, document) in changes {
            // Visible in one layer at most: the base's or middle's version is hidden for good.
            var hidden = base.hide(id)
            for layer in middles.indices.reversed() where !hidden { hidden = middles[layer].hide(id) }
            if let document {
                pending[id] = document
                deltaChanged = true
                filedByID = filedByID && document.id == id
                made += 1
            } else if pending.removeValue(forKey: id) != nil {
                deltaChanged = true
                made += 1
            } else if hidden {
                made += 1
            }
        }
        guard made > 0 else { return nil }
        let delta = !deltaChanged ? delta
            : filedByID ? appendedDelta(pending, changed: changes) : Self.deltaCore(Array(pending.values), ranking: ranking)
        return Snapshot(base: base, middles: middles, pending: pending, delta: delta, version: version + made, pendingFiledByID: filedByID)
    }

    /// Runs of up to this many changes find their ids by comparing, larger ones through a set.
    private static let smallRun = 16

    /// The delta with the run `changes` in it: the documents it holds that the run left alone,
    /// merged with a core of the run's own documents (``IndexCore/merging(_:_:equalRanks:)``).
    /// Only the run is tokenized and built; the held documents' terms, postings and views are
    /// copied in order, not built again (a rebuild of the delta of up to `maxPendingChanges`
    /// documents was most of a write's index work on every replica, issue 27 part 4). The same
    /// core as ``deltaCore(_:ranking:)`` builds over `pending`.
    private func appendedDelta(_ pending: [String: Document], changed changes: [(id: String, document: Document?)]) -> IndexCore {
        let held: [Int], runIDs: [String]
        if changes.count <= Self.smallRun {
            // A few changes against a few dozen documents: compared, not hashed.
            var ids: [String] = []
            ids.reserveCapacity(changes.count)
            for change in changes where !ids.contains(change.id) { ids.append(change.id) }
            runIDs = ids
            held = delta.documents.indices.filter { !ids.contains(delta.documents[$0].id) }
        } else {
            let ids = Set(changes.map(\.id))
            runIDs = Array(ids)
            held = delta.documents.indices.filter { !ids.contains(delta.documents[$0].id) }
        }
        let run = Self.deltaCore(runIDs.compactMap { pending[$0] }, ranking: ranking)
        return IndexCore.merging((delta, held), (run, Array(0..<run.count)), equalRanks: .byID)
    }

    /// The delta's documents moved into a middle layer of their own; then the two newest middle
    /// layers merge while the newer has at least as many live documents as the older.
    /// The delta's core is the new layer's as it is: it indexes exactly the pending documents.
    /// A merge merges the two layers' cores' structures (``IndexCore/merging(_:_:equalRanks:)``:
    /// no tokenizing, interning or sorting again).
    func mergingDelta() -> Snapshot {
        var middles = middles
        middles.append(IndexLayer(delta))
        while middles.count >= 2, middles[middles.count - 1].liveCount >= middles[middles.count - 2].liveCount {
            let newer = middles.removeLast(), older = middles.removeLast()
            // The older layer's documents first: equal ranks keep the order they had across the two.
            middles.append(IndexLayer(IndexCore.merging(
                (older.core, older.liveNumbers), (newer.core, newer.liveNumbers), equalRanks: .olderFirst)))
        }
        return Snapshot(base: base, middles: middles, pending: [:], delta: Self.deltaCore([], ranking: ranking), version: version)
    }
}
