/// The values of one `string` or `string[]` field in a segment: a dictionary of case-folded
/// values, each with its documents, and each document's values (for facets and sort).
///
/// Values live in byte arenas with 32-bit offsets (no `String` object per value: a field of
/// unique values, a path say, would pay about 80 bytes a document for them).
final class StringColumn: Sendable {
    /// The case folding of string values, for filters and facets alike (`=` is exact after it).
    /// The filter parser folds its values the same way.
    static func fold(_ text: String) -> String {
        // Most values are ASCII without capitals: they fold to themselves, with no new string
        // (a column of a million paths made a million of them).
        if text.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) { return text }
        return text.lowercased()
    }

    /// Distinct folded values in UTF-8 byte order: value `v` is `valueBytes[valueEnds[v - 1]..<valueEnds[v]]`.
    let valueBytes: [UInt8]
    let valueEnds: [UInt32]
    /// The first spelling of each value in the segment when it differs from the folded value:
    /// `spellingBytes[spellingStarts[v]..<spellingEnds[v]]`; `spellingStarts[v]` is `.max` when the same.
    /// Both empty when every value is spelled as folded (8 bytes a value saved: a column of
    /// unique lower-case paths pays them per document).
    let spellingBytes: [UInt8]
    let spellingStarts: [UInt32]
    let spellingEnds: [UInt32]
    /// Documents holding value `v`: `valueDocuments[valueStarts[v]..<valueStarts[v + 1]]`, ascending.
    let valueDocuments: [UInt32]
    let valueStarts: [UInt32]
    /// Values of document `d` (distinct, ascending): `documentValues[documentStarts[d]..<documentStarts[d + 1]]`.
    let documentValues: [UInt32]
    let documentStarts: [UInt32]
    /// Documents that have the field (an empty `string[]` counts).
    let present: DocumentSet

    var count: Int { valueEnds.count }

    /// A column as persisted (`FieldColumn+File`), already checked.
    init(
        valueBytes: [UInt8], valueEnds: [UInt32], spellingBytes: [UInt8], spellingStarts: [UInt32], spellingEnds: [UInt32],
        valueDocuments: [UInt32], valueStarts: [UInt32], documentValues: [UInt32], documentStarts: [UInt32], present: DocumentSet
    ) {
        self.valueBytes = valueBytes
        self.valueEnds = valueEnds
        self.spellingBytes = spellingBytes
        self.spellingStarts = spellingStarts
        self.spellingEnds = spellingEnds
        self.valueDocuments = valueDocuments
        self.valueStarts = valueStarts
        self.documentValues = documentValues
        self.documentStarts = documentStarts
        self.present = present
    }

    init(_ documents: [CollectionDocument], field: Int) {
        // Distinct folded values in order of appearance, as bytes; their first spelling when it differs.
        var distinct = FoldedValues(expected: documents.count)
        var entries: [UInt32] = []
        var starts: [UInt32] = [0]
        starts.reserveCapacity(documents.count + 1)
        var present = DocumentSet(capacity: documents.count)
        for (d, document) in documents.enumerated() {
            switch document.values[field] {
            case .string(let text)?:
                entries.append(distinct.id(of: text))
                present.insert(UInt32(d))
            case .strings(let texts)?:
                for text in texts { entries.append(distinct.id(of: text)) }
                present.insert(UInt32(d))
            default: break
            }
            starts.append(UInt32(entries.count))
        }
        var foldedBytes = distinct.bytes, foldedEnds = distinct.ends, firstSpellings = distinct.spellings
        distinct = FoldedValues(expected: 0)
        // Sort the values by their bytes (no String copies in the comparisons); renumber; lay them out.
        var order = Array(0..<foldedEnds.count)
        foldedBytes.withUnsafeBufferPointer { arena in
            foldedEnds.withUnsafeBufferPointer { ends in
                func value(_ v: Int) -> UnsafeBufferPointer<UInt8> {
                    UnsafeBufferPointer(rebasing: arena[(v == 0 ? 0 : Int(ends[v - 1]))..<Int(ends[v])])
                }
                order.sort { UTF8Order.compare(value($0), value($1)) < 0 }
            }
        }
        var renumber = [UInt32](repeating: 0, count: order.count)
        var valueBytes: [UInt8] = [], valueEnds: [UInt32] = [], spellingBytes: [UInt8] = [], spellingStarts: [UInt32] = [], spellingEnds: [UInt32] = []
        valueBytes.reserveCapacity(foldedBytes.count)
        valueEnds.reserveCapacity(order.count)
        spellingStarts.reserveCapacity(order.count)
        for (sorted, id) in order.enumerated() {
            renumber[id] = UInt32(sorted)
            valueBytes += foldedBytes[(id == 0 ? 0 : Int(foldedEnds[id - 1]))..<Int(foldedEnds[id])]
            valueEnds.append(UInt32(valueBytes.count))
            if let spelling = firstSpellings[id] {
                spellingStarts.append(UInt32(spellingBytes.count))
                spellingBytes += spelling.utf8
            } else {
                spellingStarts.append(.max)
            }
            spellingEnds.append(UInt32(spellingBytes.count))
        }
        foldedBytes = []
        firstSpellings = []
        if spellingBytes.isEmpty {
            spellingStarts = []
            spellingEnds = []
        }
        var documentValues: [UInt32] = []
        documentValues.reserveCapacity(entries.count)
        var documentStarts: [UInt32] = [0]
        documentStarts.reserveCapacity(documents.count + 1)
        var valueStarts = [UInt32](repeating: 0, count: order.count + 1)
        var local: [UInt32] = []
        for d in 0..<documents.count {
            local.removeAll(keepingCapacity: true)
            for i in Int(starts[d])..<Int(starts[d + 1]) { local.append(renumber[Int(entries[i])]) }
            local.sort()
            var previous = UInt32.max
            for id in local where id != previous {
                documentValues.append(id)
                valueStarts[Int(id) + 1] += 1
                previous = id
            }
            documentStarts.append(UInt32(documentValues.count))
        }
        for v in 0..<order.count { valueStarts[v + 1] += valueStarts[v] }
        var fill = valueStarts
        var valueDocuments = [UInt32](repeating: 0, count: Int(valueStarts[order.count]))
        for d in 0..<documents.count {
            for i in Int(documentStarts[d])..<Int(documentStarts[d + 1]) {
                let v = Int(documentValues[i])
                valueDocuments[Int(fill[v])] = UInt32(d)
                fill[v] += 1
            }
        }
        self.valueBytes = valueBytes
        self.valueEnds = valueEnds
        self.spellingBytes = spellingBytes
        self.spellingStarts = spellingStarts
        self.spellingEnds = spellingEnds
        self.documentValues = documentValues
        self.documentStarts = documentStarts
        self.valueStarts = valueStarts
        self.valueDocuments = valueDocuments
        self.present = present
    }

    /// The UTF-8 bytes of folded value `v`.
    @inline(__always) func bytes(_ v: Int) -> ArraySlice<UInt8> {
        valueBytes[(v == 0 ? 0 : Int(valueEnds[v - 1]))..<Int(valueEnds[v])]
    }

    /// Folded value `v`.
    func value(_ v: Int) -> String { String(decoding: bytes(v), as: UTF8.self) }

    /// Value `v` as first spelled in the segment.
    func spelling(_ v: Int) -> String {
        guard !spellingStarts.isEmpty else { return value(v) }
        let start = spellingStarts[v]
        guard start != .max else { return value(v) }
        return String(decoding: spellingBytes[Int(start)..<Int(spellingEnds[v])], as: UTF8.self)
    }

    /// The id of the folded value `folded`, if the segment holds it.
    func valueId(_ folded: String) -> UInt32? {
        var folded = folded
        return folded.withUTF8 { target in
            valueBytes.withUnsafeBufferPointer { arena in
                func value(_ v: Int) -> UnsafeBufferPointer<UInt8> {
                    UnsafeBufferPointer(rebasing: arena[(v == 0 ? 0 : Int(valueEnds[v - 1]))..<Int(valueEnds[v])])
                }
                var lo = 0, hi = count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if UTF8Order.compare(value(mid), target) < 0 { lo = mid + 1 } else { hi = mid }
                }
                return lo < count && UTF8Order.compare(value(lo), target) == 0 ? UInt32(lo) : nil
            }
        }
    }

    /// The values of document `d` (ids, ascending).
    @inline(__always) func values(of d: UInt32) -> ArraySlice<UInt32> {
        documentValues[Int(documentStarts[Int(d)])..<Int(documentStarts[Int(d) + 1])]
    }
}

/// The distinct folded values of a column being built, in order of appearance, found by an
/// open-addressing table over their bytes: no `String` key hashed (SipHash) and kept per value,
/// which cost most of a column's build (five columns a document for an import of file paths).
private struct FoldedValues {
    /// Value `v` is `bytes[ends[v - 1]..<ends[v]]`.
    private(set) var bytes: [UInt8] = []
    private(set) var ends: [UInt32] = []
    /// The first spelling of each value when it differs from the folded value.
    private(set) var spellings: [String?] = []
    /// Value number + 1; 0 when empty.
    private var slots: [UInt32]
    private var mask: Int

    init(expected: Int) {
        var size = 64
        while size < expected * 2 { size <<= 1 }
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
    }

    /// The number of `text`'s folded value (``StringColumn/fold(_:)``), adding it if new.
    mutating func id(of text: String) -> UInt32 {
        var contiguous = text
        return contiguous.withUTF8 { raw in
            // Most values are ASCII without capitals: their bytes are the folded value.
            if raw.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) { return id(folded: raw, spelling: nil) }
            var folded = StringColumn.fold(text)
            let spelling: String? = folded == text ? nil : text
            return folded.withUTF8 { id(folded: $0, spelling: spelling) }
        }
    }

    private mutating func id(folded: UnsafeBufferPointer<UInt8>, spelling: String?) -> UInt32 {
        if ends.count * 2 >= slots.count { grow() }
        var slot = Self.hash(folded) & mask
        while true {
            let stored = slots[slot]
            if stored == 0 {
                bytes.append(contentsOf: folded)
                ends.append(UInt32(bytes.count))
                spellings.append(spelling)
                slots[slot] = UInt32(ends.count)
                return UInt32(ends.count - 1)
            }
            if equals(Int(stored - 1), folded) { return stored - 1 }
            slot = (slot + 1) & mask
        }
    }

    private func equals(_ v: Int, _ folded: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = v == 0 ? 0 : Int(ends[v - 1]), end = Int(ends[v])
        guard end - start == folded.count else { return false }
        return bytes.withUnsafeBufferPointer { UTF8Order.compare(UnsafeBufferPointer(rebasing: $0[start..<end]), folded) == 0 }
    }

    private mutating func grow() {
        let size = slots.count * 2
        slots = [UInt32](repeating: 0, count: size)
        mask = size - 1
        bytes.withUnsafeBufferPointer { all in
            for v in 0..<ends.count {
                let value = UnsafeBufferPointer(rebasing: all[(v == 0 ? 0 : Int(ends[v - 1]))..<Int(ends[v])])
                var slot = Self.hash(value) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = UInt32(v + 1)
            }
        }
    }

    /// FNV-1a over the bytes.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }
}
