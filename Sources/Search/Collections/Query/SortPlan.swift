/// A query's `sort` resolved against the schema: per key, how to read a document's value as a
/// number that orders it (NaN when the document has none: it goes last either way).
struct SortPlan {
    enum Key {
        case number(field: Int, descending: Bool)
        /// Value ids in a segment's sorted dictionary; across segments the strings are compared.
        case string(field: Int, descending: Bool)
        case boolean(field: Int, descending: Bool)
        case distance(from: GeoPoint, geoField: Int, descending: Bool)

        var descending: Bool {
            switch self {
            case .number(_, let descending), .string(_, let descending), .boolean(_, let descending), .distance(_, _, let descending):
                return descending
            }
        }
    }

    /// At most `CollectionQuery.Limits.maxSortKeys`; keys on undeclared or geo fields are left out.
    let keys: [Key]

    init(_ sort: [SortKey], layout: SchemaLayout) {
        var keys: [Key] = []
        for key in sort {
            switch key {
            case .field(let name, let descending):
                guard let field = layout.fieldIndex(named: name) else { continue }
                switch layout.schema.fields[field].type {
                case .number: keys.append(.number(field: field, descending: descending))
                case .string, .stringArray: keys.append(.string(field: field, descending: descending))
                case .boolean: keys.append(.boolean(field: field, descending: descending))
                case .geo: continue
                }
            case .distance(let point, let descending):
                guard let field = layout.geoField else { continue }
                keys.append(.distance(from: point, geoField: field, descending: descending))
            }
        }
        self.keys = Array(keys.prefix(CollectionQuery.Limits.maxSortKeys))
    }

    var isEmpty: Bool { keys.isEmpty }

    /// The point hits measure their distance from: the sort's, if it names one.
    var distancePoint: GeoPoint? {
        for key in keys { if case .distance(let point, _, _) = key { return point } }
        return nil
    }

    /// The sort values of `documents` in `segment`, in order: key by key over raw buffers (a
    /// switch and a column copy per document cost more than the reads). A `string[]` sorts by
    /// its least value ascending, by its greatest descending; NaN where a document has none.
    func values(_ documents: UnsafeBufferPointer<UInt32>, in segment: CollectionSegment) -> [SIMD4<Double>] {
        var result = [SIMD4<Double>](repeating: SIMD4(repeating: .nan), count: documents.count)
        for (index, key) in keys.enumerated() {
            switch key {
            case .number(let field, _):
                guard case .numbers(let column) = segment.columns[field] else { continue }
                column.values.withUnsafeBufferPointer { values in
                    for (i, d) in documents.enumerated() { result[i][index] = values[Int(d)] }
                }
            case .string(let field, let descending):
                guard case .strings(let column) = segment.columns[field] else { continue }
                column.documentValues.withUnsafeBufferPointer { values in
                    column.documentStarts.withUnsafeBufferPointer { starts in
                        if column.isSingleValued {
                            for (i, d) in documents.enumerated() where values[Int(d)] != StringColumn.noValue {
                                result[i][index] = Double(values[Int(d)])
                            }
                        } else {
                            for (i, d) in documents.enumerated() {
                                let (start, end) = (Int(starts[Int(d)]), Int(starts[Int(d) + 1]))
                                if start < end { result[i][index] = Double(values[descending ? end - 1 : start]) }
                            }
                        }
                    }
                }
            case .boolean(let field, _):
                guard case .booleans(let column) = segment.columns[field] else { continue }
                column.values.withUnsafeBufferPointer { values in
                    for (i, d) in documents.enumerated() where values[Int(d)] != BooleanColumn.missing {
                        result[i][index] = Double(values[Int(d)])
                    }
                }
            case .distance(let point, let field, _):
                guard case .geo(let column) = segment.columns[field] else { continue }
                column.latitudes.withUnsafeBufferPointer { latitudes in
                    column.longitudes.withUnsafeBufferPointer { longitudes in
                        for (i, d) in documents.enumerated() where !latitudes[Int(d)].isNaN {
                            result[i][index] = GeoMath.distance(point.latitude, point.longitude, latitudes[Int(d)], longitudes[Int(d)])
                        }
                    }
                }
            }
        }
        return result
    }

    /// -1 when `a` (values of a document of `segmentA`) sorts first, 1 when `b` does, 0 on a tie.
    func compare(_ a: SIMD4<Double>, _ segmentA: CollectionSegment, _ b: SIMD4<Double>, _ segmentB: CollectionSegment) -> Int {
        for (index, key) in keys.enumerated() {
            let x = a[index], y = b[index]
            if x.isNaN || y.isNaN {
                if x.isNaN != y.isNaN { return x.isNaN ? 1 : -1 }
                continue
            }
            var order = 0
            if case .string(let field, _) = key, segmentA !== segmentB,
                case .strings(let columnA) = segmentA.columns[field], case .strings(let columnB) = segmentB.columns[field]
            {
                let (s, t) = (columnA.bytes(Int(x)), columnB.bytes(Int(y)))
                order = s.elementsEqual(t) ? 0 : s.lexicographicallyPrecedes(t) ? -1 : 1
            } else {
                order = x < y ? -1 : x > y ? 1 : 0
            }
            if order != 0 { return key.descending ? -order : order }
        }
        return 0
    }

    /// The order of documents within one segment as integers compared in turn: each sort value
    /// mapped to an order-preserving `UInt64` (descending flipped, missing last), then the
    /// relevance key (tier, then number: rank order within a segment).
    struct SegmentKey: Comparable {
        var values: SIMD4<UInt64>
        var relevance: UInt64

        @inline(__always) static func < (a: SegmentKey, b: SegmentKey) -> Bool {
            for i in 0..<4 where a.values[i] != b.values[i] { return a.values[i] < b.values[i] }
            return a.relevance < b.relevance
        }
    }

    @inline(__always) func segmentKey(_ values: SIMD4<Double>, relevance: UInt64) -> SegmentKey {
        var packed = SIMD4<UInt64>(repeating: 0)
        for (index, key) in keys.enumerated() {
            let value = values[index]
            if value.isNaN {
                packed[index] = .max
                continue
            }
            let bits = (value == 0 ? 0.0 : value).bitPattern
            let ordered = bits & (1 << 63) != 0 ? ~bits : bits | 1 << 63
            // `.max` stays for missing values: flipped values stop one short of it.
            packed[index] = key.descending ? min(~ordered, .max - 1) : min(ordered, .max - 1)
        }
        return SegmentKey(values: packed, relevance: relevance)
    }
}
