import Base
import Dispatch

extension FieldColumn {
    /// The columns of the merged documents (``SegmentMerge``) from the parts' columns (`parts[p]`:
    /// part `p`'s, one per declared field): what `build(_:layout:)` makes of those documents.
    /// On all cores (one field each) for a large merge, as `build` runs. `document(p, d)`: part
    /// `p`'s document `d`, read back for a string's spelling (``StringColumn/init(merging:_:field:document:)``).
    static func merging(
        _ parts: [[FieldColumn]], _ merge: SegmentMerge, layout: SchemaLayout, document: @Sendable (Int, UInt32) -> CollectionDocument?
    ) -> [FieldColumn] {
        let fields = layout.schema.fields
        return eachField(fields.count, documents: merge.count) { index in
            let columns = parts.map { $0[index] }
            let column: FieldColumn
            switch fields[index].type {
            case .string, .stringArray:
                let strings = columns.map { if case .strings(let c) = $0 { c } else { preconditionFailure() } }
                column = .strings(StringColumn(merging: strings, merge, field: index, document: document))
            case .number:
                let values = gather(merge, columns) { if case .numbers(let c) = $0 { c.values } else { preconditionFailure() } }
                column = .numbers(NumberColumn(values: values, order: NumberColumn.order(of: values)))
            case .boolean:
                let values = gather(merge, columns) { if case .booleans(let c) = $0 { c.values } else { preconditionFailure() } }
                var trueDocuments = DocumentSet(capacity: merge.count), falseDocuments = DocumentSet(capacity: merge.count)
                for (d, value) in values.enumerated() where value != BooleanColumn.missing {
                    if value == 1 { trueDocuments.insert(UInt32(d)) } else { falseDocuments.insert(UInt32(d)) }
                }
                column = .booleans(BooleanColumn(values: values, trueDocuments: trueDocuments, falseDocuments: falseDocuments))
            case .geo:
                let geo = columns.map { if case .geo(let c) = $0 { c } else { preconditionFailure() } }
                var cells: [UInt64] = []
                for (p, part) in geo.enumerated() {
                    for cell in part.cells {
                        let n = merge.numbers[p][Int(UInt32(truncatingIfNeeded: cell))]
                        if n != SegmentMerge.dropped { cells.append(cell & 0xFFFF_FFFF_0000_0000 | UInt64(n)) }
                    }
                }
                cells.sort()
                column = .geo(GeoColumn(
                    latitudes: merge.sources.map { geo[$0.part].latitudes[Int($0.document)] },
                    longitudes: merge.sources.map { geo[$0.part].longitudes[Int($0.document)] }, cells: cells))
            }
            return column
        }
    }

    /// Each merged document's value from its part's per-document array.
    private static func gather<Value>(_ merge: SegmentMerge, _ columns: [FieldColumn], _ values: (FieldColumn) -> [Value]) -> [Value] {
        let arrays = columns.map(values)
        return merge.sources.map { arrays[$0.part][Int($0.document)] }
    }
}
