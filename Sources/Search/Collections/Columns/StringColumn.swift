/// The values of one `string` or `string[]` field in a segment: a dictionary of case-folded
/// values, each with its documents, and each document's values (for facets and sort).
///
/// Values are front-coded bytes (no `String` object per value: a field of unique values, a path
/// say, would pay about 80 bytes a document for them; a plain arena kept every path whole).
final class StringColumn: Sendable {
    /// The case folding of string values, for filters and facets alike (`=` is exact after it).
    /// The filter parser folds its values the same way.
    static func fold(_ text: String) -> String {
        // Most values are ASCII without capitals: they fold to themselves, with no new string
        // (a column of a million paths made a million of them).
        if text.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) { return text }
        return text.lowercased()
    }

    /// Whether `bytes` are ASCII without capitals, eight a step (a byte-by-byte check cost about
    /// fifteen instructions a byte: every value of every string column of an import passes here).
    static func foldsToItself(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        // Each byte below 0x80: adding 0x3F sets its high bit from 0x41 ('A') up, adding 0x25 from 0x5B past 'Z'.
        func clean(_ word: UInt64) -> Bool {
            word & highs == 0 && (word &+ 0x3F &* ones) & ~(word &+ 0x25 &* ones) & highs == 0
        }
        var offset = 0
        while offset + 8 <= bytes.count {
            guard clean(UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: offset, as: UInt64.self)) else { return false }
            offset += 8
        }
        var tail: UInt64 = 0  // zero bytes pass
        for i in offset..<bytes.count { tail |= UInt64(bytes[i]) << UInt64(8 * (i - offset)) }
        return clean(tail)
    }

    /// Distinct folded values in UTF-8 byte order, front-coded (a column of sorted paths shares
    /// most of its bytes with the value before).
    let values: FrontCodedStrings
    /// The values whose first spelling in the segment differs from the folded value (ascending),
    /// and those spellings in the same order: nothing kept for the values spelled as folded.
    let spelled: [UInt32]
    let spellings: FrontCodedStrings
    /// Documents holding value `v`: `valueDocuments[valueStarts[v]..<valueStarts[v + 1]]`, ascending.
    let valueDocuments: [UInt32]
    let valueStarts: [UInt32]
    /// Values of document `d` (distinct, ascending): `documentValues[documentStarts[d]..<documentStarts[d + 1]]`;
    /// when no document has two (``isSingleValued``: a `string` field), `documentStarts` is
    /// empty and `documentValues[d]` is `d`'s value or ``noValue`` (4 bytes a document saved).
    let documentValues: [UInt32]
    let documentStarts: [UInt32]
    /// Documents that have the field (an empty `string[]` counts).
    let present: DocumentSet

    var count: Int { values.count }

    /// `documentValues[d]` of a single-valued column when `d` has no value.
    static let noValue = UInt32.max

    /// Whether each document has at most one value, at `documentValues[d]`.
    var isSingleValued: Bool { documentStarts.isEmpty }

    /// A column as persisted (`FieldColumn+File`), already checked.
    init(
        values: FrontCodedStrings, spelled: [UInt32], spellings: FrontCodedStrings,
        valueDocuments: [UInt32], valueStarts: [UInt32], documentValues: [UInt32], documentStarts: [UInt32], present: DocumentSet
    ) {
        self.values = values
        self.spelled = spelled
        self.spellings = spellings
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
        for d in documents.indices {  // by index: not a copy of each document (three references retained)
            switch documents[d].values[field] {
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
        var foldedBytes = distinct.values.arena, foldedStarts = distinct.values.starts, firstSpellings = distinct.spellings
        distinct = FoldedValues(expected: 0)
        // Sort the values by their bytes (no String copies in the comparisons); renumber; lay them out.
        var order = Array(0..<(foldedStarts.count - 1))
        foldedBytes.withUnsafeBufferPointer { arena in
            foldedStarts.withUnsafeBufferPointer { starts in
                func value(_ v: Int) -> UnsafeBufferPointer<UInt8> {
                    UnsafeBufferPointer(rebasing: arena[Int(starts[v])..<Int(starts[v + 1])])
                }
                order.sort { UTF8Order.compare(value($0), value($1)) < 0 }
            }
        }
        var renumber = [UInt32](repeating: 0, count: order.count)
        var values = FrontCodedStrings.Builder(), spellings = FrontCodedStrings.Builder()
        var spelled: [UInt32] = []
        for (sorted, id) in order.enumerated() {
            renumber[id] = UInt32(sorted)
            values.append(foldedBytes[Int(foldedStarts[id])..<Int(foldedStarts[id + 1])])
            if let spelling = firstSpellings[id] {
                spelled.append(UInt32(sorted))
                spellings.append(spelling.utf8)
            }
        }
        foldedBytes = []
        firstSpellings = []
        var documentValues: [UInt32] = []
        documentValues.reserveCapacity(entries.count)
        var documentStarts: [UInt32] = [0]
        documentStarts.reserveCapacity(documents.count + 1)
        var valueStarts = [UInt32](repeating: 0, count: order.count + 1)
        var local: [UInt32] = []
        for d in 0..<documents.count {
            local.removeAll(keepingCapacity: true)
            for i in Int(starts[d])..<Int(starts[d + 1]) { local.append(renumber[Int(entries[i])]) }
            if local.count > 1 { local.sort() }  // most documents hold one value
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
        self.values = values.build()
        self.spelled = spelled
        self.spellings = spellings.build()
        if (0..<documents.count).allSatisfy({ documentStarts[$0 + 1] - documentStarts[$0] <= 1 }) {
            self.documentValues = (0..<documents.count).map { documentStarts[$0 + 1] > documentStarts[$0] ? documentValues[Int(documentStarts[$0])] : Self.noValue }
            self.documentStarts = []
        } else {
            self.documentValues = documentValues
            self.documentStarts = documentStarts
        }
        self.valueStarts = valueStarts
        self.valueDocuments = valueDocuments
        self.present = present
    }

    /// The UTF-8 bytes of folded value `v`.
    func bytes(_ v: Int) -> [UInt8] { values.string(v) }

    /// Folded value `v`.
    func value(_ v: Int) -> String { values.withString(v) { String(decoding: $0, as: UTF8.self) } }

    /// Value `v` as first spelled in the segment.
    func spelling(_ v: Int) -> String {
        var lo = 0, hi = spelled.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if spelled[mid] < UInt32(v) { lo = mid + 1 } else { hi = mid }
        }
        guard lo < spelled.count, spelled[lo] == UInt32(v) else { return value(v) }
        return spellings.withString(lo) { String(decoding: $0, as: UTF8.self) }
    }

    /// The id of the folded value `folded`, if the segment holds it.
    func valueId(_ folded: String) -> UInt32? {
        var folded = folded
        return folded.withUTF8 { values.index(of: $0) }.map { UInt32($0) }
    }

    /// Where the values of document `d` are in `documentValues`.
    @inline(__always) func valueRange(of d: Int) -> Range<Int> {
        isSingleValued ? d..<(documentValues[d] == Self.noValue ? d : d + 1) : Int(documentStarts[d])..<Int(documentStarts[d + 1])
    }

    /// The values of document `d` (ids, ascending).
    @inline(__always) func values(of d: UInt32) -> ArraySlice<UInt32> {
        if isSingleValued {
            let d = Int(d)
            return documentValues[d..<(documentValues[d] == Self.noValue ? d : d + 1)]
        }
        return documentValues[Int(documentStarts[Int(d)])..<Int(documentStarts[Int(d) + 1])]
    }
}

/// The distinct folded values of a column being built, in order of appearance, interned by their
/// bytes (``ArenaInterner``): no `String` key hashed (SipHash) and kept per value, which cost most
/// of a column's build (five columns a document for an import of file paths).
private struct FoldedValues {
    /// Value `v` is `values.units(of: v)`.
    private(set) var values: ArenaInterner<UInt8>
    /// The first spelling of each value when it differs from the folded value.
    private(set) var spellings: [String?] = []

    init(expected: Int) {
        values = ArenaInterner(expected: expected, minimumSlots: 64)
    }

    /// The number of `text`'s folded value (``StringColumn/fold(_:)``), adding it if new.
    mutating func id(of text: String) -> UInt32 {
        // A native string's bytes are read in place (a `var` copy for `withUTF8` was one more
        // retain and release of every value of every string column of an import).
        if let id = text.utf8.withContiguousStorageIfAvailable({ raw in
            StringColumn.foldsToItself(raw) ? id(folded: raw, spelling: nil) : nil
        }), let id {
            return id
        }
        var contiguous = text
        return contiguous.withUTF8 { raw in
            // Most values are ASCII without capitals: their bytes are the folded value.
            if StringColumn.foldsToItself(raw) { return id(folded: raw, spelling: nil) }
            var folded = StringColumn.fold(text)
            let spelling: String? = folded == text ? nil : text
            return folded.withUTF8 { id(folded: $0, spelling: spelling) }
        }
    }

    private mutating func id(folded: UnsafeBufferPointer<UInt8>, spelling: String?) -> UInt32 {
        let (id, isNew) = values.add(folded)
        if isNew { spellings.append(spelling) }
        return id
    }
}
