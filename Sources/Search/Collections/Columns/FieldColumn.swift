import Base
import Dispatch

/// The column of one declared field in a segment, by the field's type.
enum FieldColumn: Sendable {
    case strings(StringColumn)
    case numbers(NumberColumn)
    case booleans(BooleanColumn)
    case geo(GeoColumn)

    /// A column per declared field of `layout`, built on all cores (one field each) for a large
    /// segment.
    static func build(_ documents: [CollectionDocument], layout: SchemaLayout) -> [FieldColumn] {
        let fields = layout.schema.fields
        return eachField(fields.count, documents: documents.count) { index in
            switch fields[index].type {
            case .string, .stringArray: .strings(StringColumn(documents, field: index))
            case .number: .numbers(NumberColumn(documents, field: index))
            case .boolean: .booleans(BooleanColumn(documents, field: index))
            case .geo: .geo(GeoColumn(documents, field: index))
            }
        }
    }

    /// Segments of fewer documents build their columns one after another on the caller's thread:
    /// handing seven columns of a city's write (a segment of about 20 documents) to the pool's
    /// threads cost more than building them, and woke every core for it.
    static let parallelColumnsMinDocuments = 4_096

    /// `column(field)` for each of `count` fields, in parallel when the segment has `documents`
    /// of at least ``parallelColumnsMinDocuments``.
    static func eachField(_ count: Int, documents: Int, _ column: @Sendable (Int) -> FieldColumn) -> [FieldColumn] {
        guard documents >= parallelColumnsMinDocuments else { return (0..<count).map(column) }
        let results = Locked<[FieldColumn?]>(Array(repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let built = column(index)
            results.withLock { $0[index] = built }
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
