/// The values of one `boolean` field in a segment: each value's documents as a set, and each
/// document's value (for facets and sort).
final class BooleanColumn: Sendable {
    static let missing: UInt8 = 2
    /// 0 false, 1 true, `missing`.
    let values: [UInt8]
    let trueDocuments: DocumentSet
    let falseDocuments: DocumentSet

    /// A column as persisted, already checked.
    init(values: [UInt8], trueDocuments: DocumentSet, falseDocuments: DocumentSet) {
        self.values = values
        self.trueDocuments = trueDocuments
        self.falseDocuments = falseDocuments
    }

    init(_ documents: [CollectionDocument], field: Int) {
        var trueDocuments = DocumentSet(capacity: documents.count)
        var falseDocuments = DocumentSet(capacity: documents.count)
        values = documents.enumerated().map { d, document in
            guard case .boolean(let flag)? = document.values[field] else { return Self.missing }
            if flag { trueDocuments.insert(UInt32(d)) } else { falseDocuments.insert(UInt32(d)) }
            return flag ? 1 : 0
        }
        self.trueDocuments = trueDocuments
        self.falseDocuments = falseDocuments
    }
}
