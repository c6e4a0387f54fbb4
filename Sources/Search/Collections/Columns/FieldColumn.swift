import Base
import Dispatch

/// The column of one declared field in a segment, by the field's type.
enum FieldColumn: Sendable {
    case strings(StringColumn)
    case numbers(NumberColumn)
    case booleans(BooleanColumn)
    case geo(GeoColumn)

    /// A column per declared field of `layout`, built on all cores (one field each).
    static func build(_ documents: [CollectionDocument], layout: SchemaLayout) -> [FieldColumn] {
        let fields = layout.schema.fields
        let results = Locked<[FieldColumn?]>(Array(repeating: nil, count: fields.count))
        DispatchQueue.concurrentPerform(iterations: fields.count) { index in
            let column: FieldColumn
            switch fields[index].type {
            case .string, .stringArray: column = .strings(StringColumn(documents, field: index))
            case .number: column = .numbers(NumberColumn(documents, field: index))
            case .boolean: column = .booleans(BooleanColumn(documents, field: index))
            case .geo: column = .geo(GeoColumn(documents, field: index))
            }
            results.withLock { $0[index] = column }
        }
        return results.withLock { $0.map { $0! } }
    }

    /// Documents that have a value for the field.
    func present(count: Int) -> DocumentSet {
        switch self {
        case .strings(let column): return column.present
        case .numbers(let column): return DocumentSet(capacity: count, column.order)
        case .booleans(let column):
            var set = column.trueDocuments
            set.formUnion(column.falseDocuments)
            return set
        case .geo(let column): return DocumentSet(capacity: count, column.cells.lazy.map { UInt32(truncatingIfNeeded: $0) })
        }
    }

    /// Whether document `d` has a value for the field.
    @inline(__always) func has(_ d: UInt32) -> Bool {
        switch self {
        case .strings(let column): return column.present.contains(d)
        case .numbers(let column): return !column.values[Int(d)].isNaN
        case .booleans(let column): return column.values[Int(d)] != BooleanColumn.missing
        case .geo(let column): return !column.latitudes[Int(d)].isNaN
        }
    }
}
