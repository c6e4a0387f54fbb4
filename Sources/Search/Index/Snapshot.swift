/// One immutable state of a `SearchIndex`: a large base core built rarely, plus the documents
/// changed since (a small delta core rebuilt on each write) and the base documents they hide.
final class Snapshot: Sendable {
    let base: IndexCore
    /// Base document number by id.
    let baseIds: [String: UInt32]
    /// Base documents replaced or deleted since the base was built: bitset and list.
    let tombstones: [UInt64]
    let tombstoneList: [UInt32]
    /// Documents upserted since the base was built, by id, and their index.
    let pending: [String: Document]
    let delta: IndexCore
    let version: UInt64

    init(
        base: IndexCore, baseIds: [String: UInt32], tombstones: [UInt64], tombstoneList: [UInt32],
        pending: [String: Document], delta: IndexCore, version: UInt64
    ) {
        self.base = base
        self.baseIds = baseIds
        self.tombstones = tombstones
        self.tombstoneList = tombstoneList
        self.pending = pending
        self.delta = delta
        self.version = version
    }

    /// A fresh snapshot over `documents` (ids unique).
    convenience init(documents: [Document], policy: HeavyPrefixes.Policy, ranking: RankingRules.Levels, version: UInt64) {
        let base = IndexCore.build(documents, heavyPolicy: policy, ranking: ranking)
        var ids = [String: UInt32](minimumCapacity: base.count)
        for (number, document) in base.documents.enumerated() { ids[document.id] = UInt32(number) }
        self.init(
            base: base, baseIds: ids, tombstones: [UInt64](repeating: 0, count: (base.count + 63) / 64),
            tombstoneList: [], pending: [:], delta: Self.deltaCore([:], ranking: ranking), version: version)
    }

    static func deltaCore(_ pending: [String: Document], ranking: RankingRules.Levels) -> IndexCore {
        // Sorted by id so that equal ranks keep a stable order.
        let documents = pending.values.sorted { $0.id < $1.id }
        return IndexCore.build(documents, heavyPolicy: HeavyPrefixes.Policy(maxUnits: 0), ranking: ranking)
    }

    var count: Int { base.count - tombstoneList.count + pending.count }

    func isTombstoned(_ number: UInt32) -> Bool {
        tombstones[Int(number) >> 6] & (1 << UInt64(number & 63)) != 0
    }

    func document(id: String) -> Document? {
        if let document = pending[id] { return document }
        if let number = baseIds[id], !isTombstoned(number) { return base.documents[Int(number)] }
        return nil
    }

    /// Every live document.
    var allDocuments: [Document] {
        var result = base.documents.enumerated().filter { !isTombstoned(UInt32($0.offset)) }.map(\.element)
        result.append(contentsOf: pending.values.sorted { $0.id < $1.id })
        return result
    }

    /// This snapshot with `document` added or replaced.
    func upserting(_ document: Document) -> Snapshot {
        var pending = pending
        pending[document.id] = document
        var tombstones = tombstones, tombstoneList = tombstoneList
        if let number = baseIds[document.id], !isTombstoned(number) {
            tombstones[Int(number) >> 6] |= 1 << UInt64(number & 63)
            tombstoneList.append(number)
        }
        return Snapshot(
            base: base, baseIds: baseIds, tombstones: tombstones, tombstoneList: tombstoneList,
            pending: pending, delta: Self.deltaCore(pending, ranking: base.ranking), version: version + 1)
    }

    /// This snapshot with `changes` made in order (a document upserts its id, nil deletes it) and
    /// the delta rebuilt once for all of them; nil when none changes anything (deletes of unknown ids).
    func applying(_ changes: [(id: String, document: Document?)]) -> Snapshot? {
        var pending = pending
        var tombstones = tombstones, tombstoneList = tombstoneList
        var made: UInt64 = 0
        var deltaChanged = false
        for (id, document) in changes {
            var hidden = false
            if let number = baseIds[id], tombstones[Int(number) >> 6] & (1 << UInt64(number & 63)) == 0 {
                tombstones[Int(number) >> 6] |= 1 << UInt64(number & 63)
                tombstoneList.append(number)
                hidden = true
            }
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
        return Snapshot(
            base: base, baseIds: baseIds, tombstones: tombstones, tombstoneList: tombstoneList,
            pending: pending, delta: deltaChanged ? Self.deltaCore(pending, ranking: base.ranking) : delta, version: version + made)
    }

    /// This snapshot without document `id`, and the removed document; nil if unknown.
    func deleting(id: String) -> (Snapshot, Document)? {
        guard let removed = document(id: id) else { return nil }
        var pending = pending
        let wasPending = pending.removeValue(forKey: id) != nil
        var tombstones = tombstones, tombstoneList = tombstoneList
        if let number = baseIds[id], !isTombstoned(number) {
            tombstones[Int(number) >> 6] |= 1 << UInt64(number & 63)
            tombstoneList.append(number)
        }
        let delta = wasPending ? Self.deltaCore(pending, ranking: base.ranking) : self.delta
        let next = Snapshot(
            base: base, baseIds: baseIds, tombstones: tombstones, tombstoneList: tombstoneList,
            pending: pending, delta: delta, version: version + 1)
        return (next, removed)
    }
}
