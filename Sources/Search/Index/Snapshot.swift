/// One immutable state of a `SearchIndex`, in three layers so that no write re-indexes much:
/// a large base core built rarely (with precomputed prefixes), a middle core that collects the
/// documents changed since (rebuilt every `maxPendingChanges` changes), and a small delta core of
/// the newest changes (rebuilt on each write). A document is visible in at most one layer; the
/// older layers hide the versions replaced or deleted since they were built (tombstones).
final class Snapshot: Sendable {
    let base: IndexLayer
    let middle: IndexLayer
    /// Documents upserted since the middle layer was built, by id, and their index.
    let pending: [String: Document]
    let delta: IndexCore
    let version: UInt64

    init(base: IndexLayer, middle: IndexLayer, pending: [String: Document], delta: IndexCore, version: UInt64) {
        self.base = base
        self.middle = middle
        self.pending = pending
        self.delta = delta
        self.version = version
    }

    /// A fresh snapshot over `documents` (ids unique), all in the base.
    convenience init(documents: [Document], policy: HeavyPrefixes.Policy, ranking: RankingRules.Levels, version: UInt64) {
        let base = IndexLayer(IndexCore.build(documents, heavyPolicy: policy, ranking: ranking))
        let empty = Self.deltaCore([], ranking: ranking)
        self.init(base: base, middle: IndexLayer(empty), pending: [:], delta: empty, version: version)
    }

    /// A core without precomputed prefixes over `documents`, sorted by id first so that equal
    /// ranks keep a stable order.
    static func deltaCore(_ documents: [Document], ranking: RankingRules.Levels) -> IndexCore {
        IndexCore.build(documents.sorted { $0.id < $1.id }, heavyPolicy: HeavyPrefixes.Policy(maxUnits: 0), ranking: ranking)
    }

    var ranking: RankingRules.Levels { base.core.ranking }

    var count: Int { base.liveCount + middle.liveCount + pending.count }

    func document(id: String) -> Document? {
        pending[id] ?? middle.document(id: id) ?? base.document(id: id)
    }

    /// Every live document: the base's by rank, then the middle's by rank, then the delta's by id.
    var allDocuments: [Document] {
        base.liveDocuments + middle.liveDocuments + pending.values.sorted { $0.id < $1.id }
    }

    /// This snapshot with `changes` made in order (a document upserts its id, nil deletes it) and
    /// the delta rebuilt once for all of them; nil when none changes anything (deletes of unknown ids).
    func applying(_ changes: [(id: String, document: Document?)]) -> Snapshot? {
        var base = base, middle = middle, pending = pending
        var made: UInt64 = 0
        var deltaChanged = false
        for (id, document) in changes {
            // Visible in one layer at most: the base's or middle's version is hidden for good.
            let hidden = base.hide(id) || middle.hide(id)
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
        let delta = deltaChanged ? Self.deltaCore(Array(pending.values), ranking: ranking) : delta
        return Snapshot(base: base, middle: middle, pending: pending, delta: delta, version: version + made)
    }

    /// The delta's documents moved into a new middle layer with the middle's live ones.
    func mergingDelta() -> Snapshot {
        let middle = IndexLayer(IndexCore.build(
            middle.liveDocuments + pending.values.sorted { $0.id < $1.id }, heavyPolicy: HeavyPrefixes.Policy(maxUnits: 0),
            ranking: ranking))
        return Snapshot(base: base, middle: middle, pending: [:], delta: Self.deltaCore([], ranking: ranking), version: version)
    }
}
