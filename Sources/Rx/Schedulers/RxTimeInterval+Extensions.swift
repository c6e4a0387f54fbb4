import Foundation

extension DispatchTimeInterval {
    /// The interval in seconds; `.never` is infinite.
    var convertToSecondsInterval: TimeInterval {
        switch self {
        case .nanoseconds(let value): return TimeInterval(value) / 1_000_000_000.0
        case .microseconds(let value): return TimeInterval(value) / 1_000_000.0
        case .milliseconds(let value): return TimeInterval(value) / 1_000.0
        case .seconds(let value): return TimeInterval(value)
        case .never: return .infinity
        @unknown default: fatalError()
        }
    }

    /// What is left of this interval after the span between two dates has passed.
    func reduceWithSpanBetween(earlierDate: Date, laterDate: Date) -> DispatchTimeInterval {
        let remaining = convertToSecondsInterval - laterDate.timeIntervalSince(earlierDate)
        if remaining.isInfinite { return .never }
        return .nanoseconds(Int((remaining * 1_000_000_000).rounded()))
    }

    /// Whether the interval is zero or negative.
    var isNow: Bool {
        convertToSecondsInterval <= 0
    }
}

extension Date {
    func addingDispatchInterval(_ interval: DispatchTimeInterval) -> Date {
        addingTimeInterval(interval.convertToSecondsInterval)
    }
}
