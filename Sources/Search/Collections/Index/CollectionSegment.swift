/// An immutable part of a collection: documents numbered densely by rank (higher first, missing
/// last, then by id), their bodies, the inverted index of the searched fields and a column per
/// declared field. Segments are built once and never change; a snapshot masks the documents
/// replaced or deleted since.
final class CollectionSegment: Sendable {
    /// Names the segment's file once persisted (random: unique among a collection's segments).
    let serial: UInt64
    let count: Int
    /// Id of each document, by number.
    let ids: [String]
    let idTable: IdTable
    let bodies: SegmentBodies
    /// The rank value of each document (NaN when missing); empty when the schema has no rank.
    let ranks: [Double]
    let text: SegmentText
    /// One per declared field, in schema order.
    let columns: [FieldColumn]
    /// The sets of the filters queries asked of this segment lately.
    let filterSets = FilterSetCache()

    /// A segment as persisted (`CollectionSegment+File`), already checked.
    init(
        serial: UInt64, ids: [String], idTable: IdTable, bodies: SegmentBodies, ranks: [Double], text: SegmentText,
        columns: [FieldColumn]
    ) {
        self.serial = serial
        count = ids.count
        self.ids = ids
        self.idTable = idTable
        self.bodies = bodies
        self.ranks = ranks
        self.text = text
        self.columns = columns
    }

    /// Indexes `documents` (ids unique; any order).
    init(_ unordered: [CollectionDocument], layout: SchemaLayout) {
        precondition(unordered.count <= SegmentText.maxDocuments, "a segment numbers at most 2^27 documents")
        serial = UInt64.random(in: 1...UInt64.max)
        let rankOf: (CollectionDocument) -> Double = { document in
            guard let field = layout.rankField, case .number(let value)? = document.values[field] else { return .nan }
            return value
        }
        let unorderedRanks = layout.rankField == nil ? [] : unordered.map(rankOf)
        let order = Self.order(ids: unordered.map(\.id), ranks: unorderedRanks)
        let documents = order.map { unordered[$0] }
        count = documents.count
        ids = documents.map(\.id)
        idTable = IdTable(ids)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(documents.reduce(0) { $0 + $1.body.count })
        var ends: [Int] = []
        ends.reserveCapacity(documents.count)
        for document in documents {
            bytes.append(contentsOf: document.body)
            ends.append(bytes.count)
        }
        bodies = SegmentBodies(bytes: bytes, ends: ends)
        ranks = layout.rankField == nil ? [] : order.map { unorderedRanks[$0] }
        text = SegmentText(documents, layout: layout)
        columns = FieldColumn.build(documents, layout: layout)
    }

    /// -1 when rank `a` comes first (higher; present before missing), 1 when `b` does, else 0.
    @inline(__always) static func rankOrder(_ a: Double, _ b: Double) -> Int {
        switch (a.isNaN, b.isNaN) {
        case (false, true): return -1
        case (true, false): return 1
        case (true, true): return 0
        case (false, false): return a > b ? -1 : a < b ? 1 : 0
        }
    }

    /// The positions of `ids` in segment order: by rank when `ranks` is not empty (``rankOrder(_:_:)``),
    /// then by id (``idPrecedes(_:_:)``). Sorted by each id's first eight bytes packed in an
    /// integer, the ids themselves compared only when those tie: a batch sorted by comparing its
    /// ids as strings cost a fifth of its segment's build.
    static func order(ids: [String], ranks: [Double]) -> [Int] {
        var keys = ids.indices.map { (key: idPrefix(ids[$0]), index: $0) }
        keys.sort { a, b in
            if !ranks.isEmpty {
                let order = rankOrder(ranks[a.index], ranks[b.index])
                if order != 0 { return order < 0 }
            }
            if a.key != b.key { return a.key < b.key }
            return idPrecedes(ids[a.index], ids[b.index])
        }
        return keys.map(\.index)
    }

    /// The first eight bytes of `id` big-endian, zero-padded: when two differ they order the ids
    /// as ``idPrecedes(_:_:)`` does (a shorter id that is a prefix of the other comes first).
    static func idPrefix(_ id: String) -> UInt64 {
        var key: UInt64 = 0, shift: UInt64 = 56
        for byte in id.utf8.prefix(8) {
            key |= UInt64(byte) << shift
            shift &-= 8
        }
        return key
    }

    /// The stable last tie-break: ids in UTF-8 byte order.
    static func idPrecedes(_ a: String, _ b: String) -> Bool {
        UTF8Order.precedes(a, b)
    }

    /// The number of the document with `id`.
    func number(of id: String) -> UInt32? { idTable.number(of: id, in: ids) }

    @inline(__always) func rank(_ d: Int) -> Double {
        ranks.isEmpty ? .nan : ranks[d]
    }

    func body(_ d: Int) -> [UInt8] {
        bodies.body(d)
    }

    /// This segment with its bodies read from `bodies` instead (its saved file's): everything
    /// else shared, not copied.
    func withBodies(_ bodies: SegmentBodies) -> CollectionSegment {
        CollectionSegment(serial: serial, ids: ids, idTable: idTable, bodies: bodies, ranks: ranks, text: text, columns: columns)
    }

    /// Document `d` decoded again from its body (it was accepted with the same schema).
    func document(_ d: Int, decoder: CollectionDocumentDecoder) -> CollectionDocument? {
        try? decoder.decode(body(d))
    }
}
