/// Counts the values of the requested facet fields over every matching document, segment by
/// segment (in the pass that finds the matches), and the range of number fields.
struct FacetCounter {
    private enum Target {
        case strings(field: Int)
        case numbers(field: Int)
        case booleans(field: Int)
    }

    private let names: [String]
    private let targets: [Target]
    /// Per target: folded value → (spelling first met, count).
    private var stringCounts: [[String: (spelling: String, count: Int)]]
    private var booleanCounts: [(false: Int, true: Int)]
    private var numberValues: [[Double]]
    /// Per target, this segment's counts by value id (strings).
    private var partCounts: [[Int32]] = []
    private var columns: [FieldColumn] = []

    init(_ facets: [String], layout: SchemaLayout) {
        var names: [String] = [], targets: [Target] = []
        for name in facets where !names.contains(name) {
            guard let field = layout.fieldIndex(named: name) else { continue }
            switch layout.schema.fields[field].type {
            case .string, .stringArray: targets.append(.strings(field: field))
            case .number: targets.append(.numbers(field: field))
            case .boolean: targets.append(.booleans(field: field))
            case .geo: continue
            }
            names.append(name)
        }
        self.names = names
        self.targets = targets
        stringCounts = Array(repeating: [:], count: targets.count)
        booleanCounts = Array(repeating: (0, 0), count: targets.count)
        numberValues = Array(repeating: [], count: targets.count)
    }

    var isEmpty: Bool { targets.isEmpty }

    /// Starts counting in `segment`.
    mutating func begin(_ segment: CollectionSegment) {
        guard !targets.isEmpty else { return }
        columns = targets.map { target in
            switch target {
            case .strings(let field), .numbers(let field), .booleans(let field): return segment.columns[field]
            }
        }
        partCounts = columns.map { column in
            if case .strings(let strings) = column { return [Int32](repeating: 0, count: strings.values.count) }
            return []
        }
    }

    /// Counts matching document `d` of the current segment.
    @inline(__always) mutating func add(_ d: UInt32) {
        for index in columns.indices {
            switch columns[index] {
            case .strings(let column):
                for value in column.values(of: d) { partCounts[index][Int(value)] += 1 }
            case .numbers(let column):
                let value = column.values[Int(d)]
                if !value.isNaN { numberValues[index].append(value) }
            case .booleans(let column):
                switch column.values[Int(d)] {
                case 0: booleanCounts[index].false += 1
                case 1: booleanCounts[index].true += 1
                default: break
                }
            case .geo: break
            }
        }
    }

    /// Counts every document of the current segment but `deleted`: from the columns' sizes, not
    /// document by document.
    mutating func addAll(except deleted: DocumentSet, deletedCount: Int) {
        for index in columns.indices {
            switch columns[index] {
            case .strings(let column):
                for v in 0..<column.values.count { partCounts[index][v] = Int32(column.valueStarts[v + 1] - column.valueStarts[v]) }
                if deletedCount > 0 {
                    deleted.forEach { d in
                        for value in column.values(of: d) { partCounts[index][Int(value)] -= 1 }
                    }
                }
            case .numbers(let column):
                for d in column.order where deletedCount == 0 || !deleted.contains(d) { numberValues[index].append(column.values[Int(d)]) }
            case .booleans(let column):
                var trues = column.trueDocuments, falses = column.falseDocuments
                if deletedCount > 0 {
                    trues.subtract(deleted)
                    falses.subtract(deleted)
                }
                booleanCounts[index].true += trues.count
                booleanCounts[index].false += falses.count
            case .geo: break
            }
        }
    }

    /// Ends the current segment: its string counts join the totals by folded value.
    mutating func end() {
        for index in columns.indices {
            guard case .strings(let column) = columns[index] else { continue }
            for (v, count) in partCounts[index].enumerated() where count > 0 {
                stringCounts[index][column.values[v], default: (column.spelling(v), 0)].count += Int(count)
            }
        }
    }

    /// Per field, the `limit` most frequent values (then by value); stats of number fields.
    func result(limit: Int) -> (facets: [String: [FacetCount]], stats: [String: FacetStats]) {
        var facets: [String: [FacetCount]] = [:], stats: [String: FacetStats] = [:]
        for (index, target) in targets.enumerated() {
            let name = names[index]
            switch target {
            case .strings:
                let sorted = stringCounts[index].sorted { a, b in
                    a.value.count != b.value.count ? a.value.count > b.value.count : a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
                }
                facets[name] = sorted.prefix(limit).map { FacetCount(value: $0.value.spelling, count: $0.value.count) }
            case .booleans:
                let counts = booleanCounts[index]
                var list: [FacetCount] = []
                if counts.false > 0 { list.append(FacetCount(value: "false", count: counts.false)) }
                if counts.true > 0 { list.append(FacetCount(value: "true", count: counts.true)) }
                facets[name] = Array(list.sorted { $0.count > $1.count }.prefix(limit))  // stable: false before true on ties
            case .numbers:
                let values = numberValues[index].sorted()
                var runs: [(value: Double, count: Int)] = []
                for value in values {
                    if let last = runs.last, last.value == value { runs[runs.count - 1].count += 1 } else { runs.append((value, 1)) }
                }
                let sorted = runs.enumerated().sorted { a, b in
                    a.element.count != b.element.count ? a.element.count > b.element.count : a.offset < b.offset
                }
                facets[name] = sorted.prefix(limit).map { FacetCount(value: Self.format($0.element.value), count: $0.element.count) }
                if let first = values.first, let last = values.last { stats[name] = FacetStats(min: first, max: last) }
            }
        }
        return (facets, stats)
    }

    /// A number as JSON writes it: whole numbers without a fraction.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
