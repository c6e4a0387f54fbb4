/// The values of one `string` or `string[]` field in a segment: a dictionary of case-folded
/// values, each with its documents, and each document's values (for facets and sort).
struct StringColumn: Sendable {
    /// The case folding of string values, for filters and facets alike (`=` is exact after it).
    /// The filter parser folds its values the same way.
    static func fold(_ text: String) -> String { text.lowercased() }

    /// Distinct folded values, in UTF-8 byte order.
    let values: [String]
    /// The first spelling of each value in the segment, nil when it is the folded value itself.
    let spellings: [String?]
    /// Documents holding value `v`: `valueDocuments[valueStarts[v]..<valueStarts[v + 1]]`, ascending.
    let valueDocuments: [UInt32]
    let valueStarts: [Int]
    /// Values of document `d` (distinct, ascending): `documentValues[documentStarts[d]..<documentStarts[d + 1]]`.
    let documentValues: [UInt32]
    let documentStarts: [Int]
    /// Documents that have the field (an empty `string[]` counts).
    let present: DocumentSet

    init(_ documents: [CollectionDocument], field: Int) {
        var ids: [String: UInt32] = [:]
        var provisionalValues: [String] = []
        var provisionalSpellings: [String] = []
        var entries: [UInt32] = []
        var starts = [0]
        starts.reserveCapacity(documents.count + 1)
        var present = DocumentSet(capacity: documents.count)
        var local: [UInt32] = []
        for (d, document) in documents.enumerated() {
            local.removeAll(keepingCapacity: true)
            func add(_ text: String) {
                let folded = Self.fold(text)
                if let id = ids[folded] {
                    local.append(id)
                } else {
                    let id = UInt32(provisionalValues.count)
                    ids[folded] = id
                    provisionalValues.append(folded)
                    provisionalSpellings.append(text)
                    local.append(id)
                }
            }
            switch document.values[field] {
            case .string(let text)?:
                add(text)
                present.insert(UInt32(d))
            case .strings(let texts)?:
                texts.forEach(add)
                present.insert(UInt32(d))
            default: break
            }
            entries.append(contentsOf: local)
            starts.append(entries.count)
        }
        // Sort the values; renumber.
        let order = provisionalValues.indices.sorted { provisionalValues[$0].utf8.lexicographicallyPrecedes(provisionalValues[$1].utf8) }
        var renumber = [UInt32](repeating: 0, count: order.count)
        for (sorted, id) in order.enumerated() { renumber[id] = UInt32(sorted) }
        values = order.map { provisionalValues[$0] }
        spellings = order.map { provisionalSpellings[$0] == provisionalValues[$0] ? nil : provisionalSpellings[$0] }
        var documentValues: [UInt32] = []
        documentValues.reserveCapacity(entries.count)
        var documentStarts = [0]
        documentStarts.reserveCapacity(documents.count + 1)
        var valueStarts = [Int](repeating: 0, count: order.count + 1)
        for d in 0..<documents.count {
            local.removeAll(keepingCapacity: true)
            for i in starts[d]..<starts[d + 1] { local.append(renumber[Int(entries[i])]) }
            local.sort()
            var previous = UInt32.max
            for id in local where id != previous {
                documentValues.append(id)
                valueStarts[Int(id) + 1] += 1
                previous = id
            }
            documentStarts.append(documentValues.count)
        }
        for v in 0..<order.count { valueStarts[v + 1] += valueStarts[v] }
        var fill = valueStarts
        var valueDocuments = [UInt32](repeating: 0, count: valueStarts[order.count])
        for d in 0..<documents.count {
            for i in documentStarts[d]..<documentStarts[d + 1] {
                let v = Int(documentValues[i])
                valueDocuments[fill[v]] = UInt32(d)
                fill[v] += 1
            }
        }
        self.documentValues = documentValues
        self.documentStarts = documentStarts
        self.valueStarts = valueStarts
        self.valueDocuments = valueDocuments
        self.present = present
    }

    /// The id of the folded value `folded`, if the segment holds it.
    func valueId(_ folded: String) -> UInt32? {
        var lo = 0, hi = values.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if values[mid].utf8.lexicographicallyPrecedes(folded.utf8) { lo = mid + 1 } else { hi = mid }
        }
        return lo < values.count && values[lo] == folded ? UInt32(lo) : nil
    }

    func spelling(_ v: Int) -> String { spellings[v] ?? values[v] }

    /// The values of document `d` (ids, ascending).
    @inline(__always) func values(of d: UInt32) -> ArraySlice<UInt32> {
        documentValues[documentStarts[Int(d)]..<documentStarts[Int(d) + 1]]
    }
}
