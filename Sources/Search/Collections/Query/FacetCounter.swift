/// Counts the values of the requested facet fields over every matching document, segment by
/// segment (in the pass that finds the matches), and the range of number fields.
///
/// Strings are counted by value id into an array per segment; values are merged by folded text
/// only when several segments contribute, and only the `limit` most frequent are sorted. Numbers
/// are counted as runs of equal values: from the column's value order when the matches are many
/// (a walk of the column, no sort), else by sorting the matches' values.
struct FacetCounter {
    private enum Target {
        case strings(field: Int)
        case numbers(field: Int)
        case booleans(field: Int)

        var field: Int {
            switch self {
            case .strings(let field), .numbers(let field), .booleans(let field): return field
            }
        }
    }

    /// One segment's counts of one string field.
    private struct SegmentCounts {
        let column: StringColumn
        var counts: [Int32]
        /// The segment and which of its documents are gone: a value is shown as a live one spells it.
        let part: CollectionSnapshot.Part

        /// Value `v` as the first live document holding it spells it (the column's kept spelling
        /// unless that document is gone: ``StringColumn/liveSpelling(_:field:isLive:document:)``).
        func spelling(_ v: Int, field: Int, decoder: CollectionDocumentDecoder) -> String {
            guard part.deletedCount > 0 else { return column.spelling(v) }
            let spelled = column.liveSpelling(
                v, field: field, isLive: { !part.deleted.contains($0) }, document: { part.segment.document(Int($0), decoder: decoder) })
            return spelled ?? column.spelling(v)
        }
    }

    private let names: [String]
    private let targets: [Target]
    private var strings: [[SegmentCounts]]
    private var booleans: [(false: Int, true: Int)]
    /// Per number field, (value, count) runs, each segment's ascending.
    private var numbers: [[(value: Double, count: Int)]]
    private var segment: CollectionSegment?

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
        strings = Array(repeating: [], count: targets.count)
        booleans = Array(repeating: (0, 0), count: targets.count)
        numbers = Array(repeating: [], count: targets.count)
    }

    var isEmpty: Bool { targets.isEmpty }

    /// Starts counting in `part`'s segment.
    mutating func begin(_ part: CollectionSnapshot.Part) {
        guard !targets.isEmpty else { return }
        let segment = part.segment
        self.segment = segment
        for (index, target) in targets.enumerated() {
            if case .strings(let column) = segment.columns[target.field] {
                strings[index].append(SegmentCounts(column: column, counts: [Int32](repeating: 0, count: column.count), part: part))
            }
        }
    }

    /// Counts matching documents of the current segment (into the targets `only` lists, or all).
    mutating func add(_ documents: UnsafeBufferPointer<UInt32>, only: Set<Int>? = nil) {
        guard let segment else { return }
        for (index, target) in targets.enumerated() where only?.contains(index) ?? true {
            switch segment.columns[target.field] {
            case .strings(let column):
                let last = strings[index].count - 1
                column.documentValues.withUnsafeBufferPointer { values in
                    column.documentStarts.withUnsafeBufferPointer { starts in
                        strings[index][last].counts.withUnsafeMutableBufferPointer { counts in
                            if column.isSingleValued {
                                for d in documents where values[Int(d)] != StringColumn.noValue { counts[Int(values[Int(d)])] += 1 }
                            } else {
                                for d in documents {
                                    for i in Int(starts[Int(d)])..<Int(starts[Int(d) + 1]) { counts[Int(values[i])] += 1 }
                                }
                            }
                        }
                    }
                }
            case .numbers(let column):
                if Self.walksOrder(matches: documents.count, column: column) {
                    addRuns(of: column, to: index, passing: DocumentSet(capacity: segment.count, documents))
                } else {
                    var values: [Double] = []
                    values.reserveCapacity(documents.count)
                    column.values.withUnsafeBufferPointer { all in
                        for d in documents where !all[Int(d)].isNaN { values.append(all[Int(d)]) }
                    }
                    values.sort()
                    for value in values {
                        if let last = numbers[index].last, last.value == value {
                            numbers[index][numbers[index].count - 1].count += 1
                        } else {
                            numbers[index].append((value, 1))
                        }
                    }
                }
            case .booleans(let column):
                var counts = (false: 0, true: 0)
                column.values.withUnsafeBufferPointer { values in
                    for d in documents {
                        switch values[Int(d)] {
                        case 0: counts.false += 1
                        case 1: counts.true += 1
                        default: break
                        }
                    }
                }
                booleans[index].false += counts.false
                booleans[index].true += counts.true
            case .geo: break
            }
        }
    }

    /// Whether counting a number column's values over `matches` documents costs less as a walk of
    /// the column's value order (one bit test a value) than as a sort of the matches' values
    /// (about log₂ of them compares each, counted as 16).
    private static func walksOrder(matches: Int, column: NumberColumn) -> Bool {
        matches * 16 >= column.order.count
    }

    /// Adds the runs of the values of `column` whose documents `passing` holds: a walk of the
    /// column's value order, so the runs come out ascending without a sort.
    private mutating func addRuns(of column: NumberColumn, to index: Int, passing: DocumentSet?) {
        column.values.withUnsafeBufferPointer { values in
            var runValue = Double.nan, runCount = 0
            for d in column.order where passing?.contains(d) ?? true {
                let value = values[Int(d)]
                if value == runValue {
                    runCount += 1
                } else {
                    if runCount > 0 { numbers[index].append((runValue, runCount)) }
                    runValue = value
                    runCount = 1
                }
            }
            if runCount > 0 { numbers[index].append((runValue, runCount)) }
        }
    }

    /// Counts the documents of `set` in the current segment (`count` of them, if known).
    mutating func add(_ set: DocumentSet, count: Int? = nil) {
        guard let segment else { return }
        let count = count ?? set.count
        // Number fields from the set itself when it is large; the other fields document by document.
        var perDocument: [Int] = []
        for (index, target) in targets.enumerated() {
            if case .numbers(let column) = segment.columns[target.field], Self.walksOrder(matches: count, column: column) {
                addRuns(of: column, to: index, passing: set)
            } else {
                perDocument.append(index)
            }
        }
        guard !perDocument.isEmpty else { return }
        let only = perDocument.count == targets.count ? nil : Set(perDocument)
        var documents: [UInt32] = []
        documents.reserveCapacity(min(set.capacity, 65_536))
        set.forEach { d in
            documents.append(d)
            if documents.count == 65_536 {
                documents.withUnsafeBufferPointer { add($0, only: only) }
                documents.removeAll(keepingCapacity: true)
            }
        }
        documents.withUnsafeBufferPointer { add($0, only: only) }
    }

    /// Counts every document of the current segment but `deleted`: from the columns' sizes, not
    /// document by document.
    mutating func addAll(except deleted: DocumentSet, deletedCount: Int) {
        guard let segment else { return }
        for (index, target) in targets.enumerated() {
            switch segment.columns[target.field] {
            case .strings(let column):
                let last = strings[index].count - 1
                for v in 0..<column.count { strings[index][last].counts[v] = Int32(column.valueStarts[v + 1] - column.valueStarts[v]) }
                if deletedCount > 0 {
                    deleted.forEach { d in
                        for value in column.values(of: d) { strings[index][last].counts[Int(value)] -= 1 }
                    }
                }
            case .numbers(let column):
                addRuns(of: column, to: index, passing: deletedCount == 0 ? nil : deleted.complement())
            case .booleans(let column):
                var trues = column.trueDocuments, falses = column.falseDocuments
                if deletedCount > 0 {
                    trues.subtract(deleted)
                    falses.subtract(deleted)
                }
                booleans[index].true += trues.count
                booleans[index].false += falses.count
            case .geo: break
            }
        }
    }

    /// Per field, the `limit` most frequent values (then by value); stats of number fields.
    /// `decoder` reads a document back for a string's spelling (see ``SegmentCounts``).
    func result(limit: Int, decoder: CollectionDocumentDecoder) -> (facets: [String: [FacetCount]], stats: [String: FacetStats]) {
        var facets: [String: [FacetCount]] = [:], stats: [String: FacetStats] = [:]
        for (index, target) in targets.enumerated() {
            let name = names[index]
            switch target {
            case .strings(let field): facets[name] = Self.top(strings[index], field: field, limit: limit, decoder: decoder)
            case .booleans:
                let counts = booleans[index]
                var list: [FacetCount] = []
                if counts.false > 0 { list.append(FacetCount(value: "false", count: counts.false)) }
                if counts.true > 0 { list.append(FacetCount(value: "true", count: counts.true)) }
                facets[name] = Array(list.sorted { $0.count > $1.count }.prefix(limit))  // stable: false before true on ties
            case .numbers:
                // Each segment's runs are ascending: sorted (then merged) only when several segments gave some.
                var segmentRuns = numbers[index]
                if zip(segmentRuns, segmentRuns.dropFirst()).contains(where: { $0.value >= $1.value }) {
                    segmentRuns.sort { $0.value < $1.value }
                }
                var runs: [(value: Double, count: Int)] = []
                for run in segmentRuns {
                    if let last = runs.last, last.value == run.value { runs[runs.count - 1].count += run.count } else { runs.append(run) }
                }
                // Runs are in value order: the position breaks count ties.
                var heap = BoundedHeap<(count: Int, position: Int)>(capacity: limit)
                let precedes: ((count: Int, position: Int), (count: Int, position: Int)) -> Bool = {
                    $0.count != $1.count ? $0.count > $1.count : $0.position < $1.position
                }
                for (position, run) in runs.enumerated() { heap.offer((run.count, position), precedes: precedes) }
                facets[name] = heap.sorted(by: precedes).map { FacetCount(value: Self.format(runs[$0.position].value), count: $0.count) }
                if let first = runs.first, let last = runs.last { stats[name] = FacetStats(min: first.value, max: last.value) }
            }
        }
        return (facets, stats)
    }

    /// The `limit` most frequent values of one field over its segments' counts.
    private static func top(_ segments: [SegmentCounts], field: Int, limit: Int, decoder: CollectionDocumentDecoder) -> [FacetCount] {
        let contributing = segments.filter { $0.counts.contains { $0 > 0 } }
        if contributing.count <= 1 {
            // One segment: its value ids are in value order.
            guard let only = contributing.first else { return [] }
            var heap = BoundedHeap<(count: Int32, value: Int)>(capacity: limit)
            let precedes: ((count: Int32, value: Int), (count: Int32, value: Int)) -> Bool = {
                $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value
            }
            for (value, count) in only.counts.enumerated() where count > 0 { heap.offer((count, value), precedes: precedes) }
            return heap.sorted(by: precedes).map {
                FacetCount(value: only.spelling($0.value, field: field, decoder: decoder), count: Int($0.count))
            }
        }
        // Each value with the first segment (and its value there) that counted it: spelled as there,
        // once it is among the shown.
        typealias Entry = (key: String, segment: Int, value: Int, count: Int)
        var merged: [String: Entry] = [:]
        for (s, segment) in contributing.enumerated() {
            for (value, count) in segment.counts.enumerated() where count > 0 {
                let key = segment.column.value(value)
                merged[key, default: (key, s, value, 0)].count += Int(count)
            }
        }
        var heap = BoundedHeap<Entry>(capacity: limit)
        let precedes: (Entry, Entry) -> Bool = { $0.count != $1.count ? $0.count > $1.count : UTF8Order.precedes($0.key, $1.key) }
        for entry in merged.values { heap.offer(entry, precedes: precedes) }
        return heap.sorted(by: precedes).map {
            FacetCount(value: contributing[$0.segment].spelling($0.value, field: field, decoder: decoder), count: $0.count)
        }
    }

    /// A number as JSON writes it: whole numbers without a fraction.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
