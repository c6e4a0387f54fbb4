/// A `FilterExpression` compiled for one segment: field names resolved to columns, string values
/// to the segment's value ids, geo shapes to rectangles. It answers per document (for text
/// matches, a few) or as a set (for an empty text, every document), the same way.
///
/// A comparison the schema cannot hold (an undeclared field, a value of another type) matches
/// no document; `!=` and `NOT` are complements, so they include documents missing the field.
indirect enum SegmentFilter {
    case constant(Bool)
    /// Documents with any of these value ids (ascending).
    case strings(StringColumn, [UInt32])
    case numbers(NumberColumn, NumberBounds)
    case boolean(BooleanColumn, Bool)
    case exists(FieldColumn)
    case geoRadius(GeoColumn, center: GeoPoint, meters: Double, rectangles: [GeoMath.Rectangle])
    case geoBox(GeoColumn, rectangles: [GeoMath.Rectangle])
    case not(SegmentFilter)
    case and([SegmentFilter])
    case or([SegmentFilter])

    init(_ expression: FilterExpression, segment: CollectionSegment, layout: SchemaLayout) {
        func column(_ name: String) -> FieldColumn? {
            layout.fieldIndex(named: name).map { segment.columns[$0] }
        }
        func equal(_ column: FieldColumn?, _ values: [FilterValue]) -> SegmentFilter {
            switch column {
            case .strings(let strings)?:
                let ids = values.compactMap { value -> UInt32? in
                    guard case .string(let text) = value else { return nil }
                    return strings.valueId(StringColumn.fold(text))
                }
                return ids.isEmpty ? .constant(false) : .strings(strings, Array(Set(ids)).sorted())
            case .numbers(let numbers)?:
                let parts = values.compactMap { value -> SegmentFilter? in
                    guard case .number(let number) = value else { return nil }
                    return .numbers(numbers, NumberBounds(lower: number, lowerInclusive: true, upper: number, upperInclusive: true))
                }
                return parts.count == 1 ? parts[0] : parts.isEmpty ? .constant(false) : .or(parts)
            case .booleans(let booleans)?:
                let flags = Set(values.compactMap { value -> Bool? in
                    guard case .boolean(let flag) = value else { return nil }
                    return flag
                })
                if flags.count == 2 { return .exists(.booleans(booleans)) }
                return flags.first.map { .boolean(booleans, $0) } ?? .constant(false)
            default: return .constant(false)
            }
        }
        switch expression {
        case .compare(let field, let comparison, let value):
            let target = column(field)
            switch comparison {
            case .equal: self = equal(target, [value])
            case .notEqual: self = .not(equal(target, [value]))
            case .greater, .greaterOrEqual, .less, .lessOrEqual:
                guard case .numbers(let numbers)? = target, case .number(let number) = value else {
                    self = .constant(false)
                    return
                }
                let bounds: NumberBounds
                switch comparison {
                case .greater: bounds = NumberBounds(lower: number, lowerInclusive: false, upper: .infinity, upperInclusive: true)
                case .greaterOrEqual: bounds = NumberBounds(lower: number, lowerInclusive: true, upper: .infinity, upperInclusive: true)
                case .less: bounds = NumberBounds(lower: -.infinity, lowerInclusive: true, upper: number, upperInclusive: false)
                default: bounds = NumberBounds(lower: -.infinity, lowerInclusive: true, upper: number, upperInclusive: true)
                }
                self = .numbers(numbers, bounds)
            }
        case .oneOf(let field, let values):
            self = equal(column(field), values)
        case .between(let field, let low, let high):
            guard case .numbers(let numbers)? = column(field), case .number(let lower) = low, case .number(let upper) = high else {
                self = .constant(false)
                return
            }
            self = .numbers(numbers, NumberBounds(lower: lower, lowerInclusive: true, upper: upper, upperInclusive: true))
        case .exists(let field):
            self = column(field).map { .exists($0) } ?? .constant(false)
        case .geoRadius(let center, let meters):
            guard let field = layout.geoField, case .geo(let geo) = segment.columns[field], meters >= 0 else {
                self = .constant(false)
                return
            }
            self = .geoRadius(geo, center: center, meters: meters, rectangles: GeoMath.rectangles(around: center, meters: meters))
        case .geoBoundingBox(let topLeft, let bottomRight):
            guard let field = layout.geoField, case .geo(let geo) = segment.columns[field] else {
                self = .constant(false)
                return
            }
            self = .geoBox(geo, rectangles: GeoMath.rectangles(topLeft: topLeft, bottomRight: bottomRight))
        case .not(let inner):
            self = .not(SegmentFilter(inner, segment: segment, layout: layout))
        case .and(let parts):
            self = .and(parts.map { SegmentFilter($0, segment: segment, layout: layout) })
        case .or(let parts):
            self = .or(parts.map { SegmentFilter($0, segment: segment, layout: layout) })
        }
    }

    /// Whether document `d` passes.
    func matches(_ d: UInt32) -> Bool {
        switch self {
        case .constant(let value): return value
        case .strings(let column, let ids):
            for value in column.values(of: d) where ids.contains(value) { return true }
            return false
        case .numbers(let column, let bounds):
            let value = column.values[Int(d)]
            return !value.isNaN && bounds.contains(value)
        case .boolean(let column, let flag): return column.values[Int(d)] == (flag ? 1 : 0)
        case .exists(let column): return column.has(d)
        case .geoRadius(let column, let center, let meters, _):
            guard let distance = column.distance(d, from: center) else { return false }
            return distance <= meters
        case .geoBox(let column, let rectangles):
            let latitude = column.latitudes[Int(d)], longitude = column.longitudes[Int(d)]
            return !latitude.isNaN && rectangles.contains { $0.contains(latitude, longitude) }
        case .not(let inner): return !inner.matches(d)
        case .and(let parts): return parts.allSatisfy { $0.matches(d) }
        case .or(let parts): return parts.contains { $0.matches(d) }
        }
    }

    /// Every document of `0..<count` that passes (deleted ones included: the caller masks them).
    func documents(count: Int) -> DocumentSet {
        switch self {
        case .constant(let value): return value ? .all(capacity: count) : DocumentSet(capacity: count)
        case .strings(let column, let ids):
            var set = DocumentSet(capacity: count)
            for id in ids {
                for i in Int(column.valueStarts[Int(id)])..<Int(column.valueStarts[Int(id) + 1]) { set.insert(column.valueDocuments[i]) }
            }
            return set
        case .numbers(let column, let bounds):
            return DocumentSet(capacity: count, column.order[column.range(bounds)])
        case .boolean(let column, let flag): return flag ? column.trueDocuments : column.falseDocuments
        case .exists(let column): return column.present(count: count)
        case .geoRadius(let column, _, _, let rectangles), .geoBox(let column, let rectangles):
            var set = DocumentSet(capacity: count)
            for rectangle in rectangles {
                column.forEachCandidate(in: rectangle) { d in
                    if matches(d) { set.insert(d) }
                }
            }
            return set
        case .not(let inner): return inner.documents(count: count).complement()
        case .and(let parts):
            guard var set = parts.first?.documents(count: count) else { return .all(capacity: count) }
            for part in parts.dropFirst() {
                if set.isEmpty { break }
                set.formIntersection(part.documents(count: count))
            }
            return set
        case .or(let parts):
            var set = DocumentSet(capacity: count)
            for part in parts { set.formUnion(part.documents(count: count)) }
            return set
        }
    }

    /// About how many steps `documents(count:)` takes: the documents it inserts (value lists,
    /// number ranges) plus a word per 64 documents for each set it makes. Geo shapes count an
    /// eighth of the segment (their candidates are not known before the walk).
    func setCost(count: Int) -> Int {
        let words = count / 64 + 1
        switch self {
        case .constant: return words
        case .strings(let column, let ids):
            return words + ids.reduce(0) { $0 + Int(column.valueStarts[Int($1) + 1] - column.valueStarts[Int($1)]) }
        case .numbers(let column, let bounds): return words + column.range(bounds).count
        case .boolean: return 0
        case .exists(let column):
            if case .numbers(let numbers) = column { return words + numbers.order.count }
            if case .geo(let geo) = column { return words + geo.cells.count }
            return words
        case .geoRadius, .geoBox: return words + count / 8
        case .not(let inner): return words + inner.setCost(count: count)
        case .and(let parts), .or(let parts): return parts.reduce(words) { $0 + $1.setCost(count: count) }
        }
    }

    /// The first `_geoRadius` center, depth first: the point hits measure their distance from
    /// when the sort names none.
    static func radiusCenter(in expression: FilterExpression) -> GeoPoint? {
        switch expression {
        case .geoRadius(let center, _): return center
        case .not(let inner): return radiusCenter(in: inner)
        case .and(let parts), .or(let parts):
            for part in parts { if let center = radiusCenter(in: part) { return center } }
            return nil
        default: return nil
        }
    }
}
