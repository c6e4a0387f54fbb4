import Foundation

/// Converts `HistoricalScheduler`'s virtual time: it is real time (`Date`, `TimeInterval`).
public struct HistoricalSchedulerTimeConverter: VirtualTimeConverterType {
    /// Virtual time unit.
    public typealias VirtualTimeUnit = RxTime
    /// Virtual time interval unit.
    public typealias VirtualTimeIntervalUnit = TimeInterval

    /// The identity conversion.
    public func convertFromVirtualTime(_ virtualTime: VirtualTimeUnit) -> RxTime { virtualTime }
    /// The identity conversion.
    public func convertToVirtualTime(_ time: RxTime) -> VirtualTimeUnit { time }
    /// The identity conversion.
    public func convertFromVirtualTimeInterval(_ virtualTimeInterval: VirtualTimeIntervalUnit) -> TimeInterval { virtualTimeInterval }
    /// The identity conversion.
    public func convertToVirtualTimeInterval(_ timeInterval: TimeInterval) -> VirtualTimeIntervalUnit { timeInterval }

    /// `time` moved by `offset`.
    public func offsetVirtualTime(_ time: VirtualTimeUnit, offset: VirtualTimeIntervalUnit) -> VirtualTimeUnit {
        time.addingTimeInterval(offset)
    }

    /// Orders two dates.
    public func compareVirtualTime(_ lhs: VirtualTimeUnit, _ rhs: VirtualTimeUnit) -> VirtualTimeComparison {
        if lhs < rhs { return .lessThan }
        if lhs > rhs { return .greaterThan }
        return .equal
    }
}

/// A virtual-time scheduler whose clock is a `Date`: replays historical data at its own pace.
public class HistoricalScheduler: VirtualTimeScheduler<HistoricalSchedulerTimeConverter>, @unchecked Sendable {
    /// A scheduler whose clock starts at `initialClock`.
    public init(initialClock: RxTime = Date(timeIntervalSince1970: 0)) {
        super.init(initialClock: initialClock, converter: HistoricalSchedulerTimeConverter())
    }
}
