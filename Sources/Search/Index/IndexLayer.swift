/// One immutable core of a `Snapshot` with the documents hidden in it since it was built
/// (replaced or deleted later): the base, or the middle layer between the base and the delta.
struct IndexLayer: Sendable {
    let core: IndexCore
    /// Document number by id.
    let ids: [String: UInt32]
    /// Documents replaced or deleted since the core was built: bitset and list.
    private(set) var tombstones: [UInt64]
    private(set) var tombstoneList: [UInt32]

    /// A layer over `core`, nothing hidden.
    init(_ core: IndexCore) {
        self.core = core
        var ids = [String: UInt32](minimumCapacity: core.count)
        for (number, document) in core.documents.enumerated() { ids[document.id] = UInt32(number) }
        self.ids = ids
        tombstones = [UInt64](repeating: 0, count: (core.count + 63) / 64)
        tombstoneList = []
    }

    /// Documents still visible.
    var liveCount: Int { core.count - tombstoneList.count }

    func isTombstoned(_ number: UInt32) -> Bool {
        tombstones[Int(number) >> 6] & (1 << UInt64(number & 63)) != 0
    }

    /// The visible document with `id`.
    func document(id: String) -> Document? {
        guard let number = ids[id], !isTombstoned(number) else { return nil }
        return core.documents[Int(number)]
    }

    /// Hides the document with `id`; false if it has none visible.
    mutating func hide(_ id: String) -> Bool {
        guard let number = ids[id], !isTombstoned(number) else { return false }
        tombstones[Int(number) >> 6] |= 1 << UInt64(number & 63)
        tombstoneList.append(number)
        return true
    }

    /// The numbers of the visible documents, in the core's order.
    var liveNumbers: [Int] {
        guard !tombstoneList.isEmpty else { return Array(0..<core.count) }
        return (0..<core.count).filter { !isTombstoned(UInt32($0)) }
    }

    /// The visible documents, in the core's order (rank descending).
    var liveDocuments: [Document] {
        guard !tombstoneList.isEmpty else { return core.documents }
        return core.documents.enumerated().filter { !isTombstoned(UInt32($0.offset)) }.map(\.element)
    }

    func filter(for query: ParsedQuery) -> CoreFilter {
        core.filter(for: query, tombstones: tombstones, tombstoneList: tombstoneList)
    }
}
