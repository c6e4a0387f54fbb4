/// The values of one `number` field in a segment: a column by document (NaN when missing) and the
/// documents with a value sorted by it, for ranges, min/max and sort.
final class NumberColumn: Sendable {
    let values: [Double]
    /// Documents with a value, by ascending value (then number).
    let order: [UInt32]

    /// A column as persisted, already checked.
    init(values: [Double], order: [UInt32]) {
        self.values = values
        self.order = order
    }

    init(_ documents: [CollectionDocument], field: Int) {
        let values = documents.map { document -> Double in
            if case .number(let value)? = document.values[field] { return value }
            return .nan
        }
        self.values = values
        order = Self.order(of: values)
    }

    /// The documents with a value (not NaN) by value, ties by document.
    static func order(of values: [Double]) -> [UInt32] {
        values.indices.filter { !values[$0].isNaN }.sorted { values[$0] != values[$1] ? values[$0] < values[$1] : $0 < $1 }.map { UInt32($0) }
    }

    /// Positions in `order` of the values within the bounds.
    func range(_ bounds: NumberBounds) -> Range<Int> {
        // First position whose value is above the lower bound, then above the upper one.
        let start = partition { bounds.lowerInclusive ? $0 >= bounds.lower : $0 > bounds.lower }
        let end = partition { bounds.upperInclusive ? $0 > bounds.upper : $0 >= bounds.upper }
        return start..<max(start, end)
    }

    private func partition(_ isAbove: (Double) -> Bool) -> Int {
        var lo = 0, hi = order.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if isAbove(values[Int(order[mid])]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}

/// An interval of numbers, each end open or closed (infinite ends for one-sided comparisons).
struct NumberBounds: Sendable, Hashable {
    var lower: Double
    var lowerInclusive: Bool
    var upper: Double
    var upperInclusive: Bool

    @inline(__always) func contains(_ value: Double) -> Bool {
        (lowerInclusive ? value >= lower : value > lower) && (upperInclusive ? value <= upper : value < upper)
    }
}
