import Dispatch
import Foundation

/// Abstracts the work that needs to be performed on a (possibly concurrent) `DispatchQueue`.
///
/// Work items may run in parallel; do not use it where delivery must be serial
/// (`observe(on:)` to a concurrent scheduler still keeps one observer's events serial).
public class ConcurrentDispatchQueueScheduler: SchedulerType, @unchecked Sendable {
    // `@unchecked`: immutable after init (non-final for subclassing, as in RxSwift).

    /// - returns: Current time.
    public var now: Date { Date() }

    let configuration: DispatchQueueConfiguration

    /// Constructs a scheduler that wraps `queue`.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        configuration = DispatchQueueConfiguration(queue: queue, leeway: leeway)
    }

    /// Constructs a scheduler that wraps the global concurrent queue of `qos`.
    public convenience init(qos: DispatchQoS, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(queue: DispatchQueue.global(qos: qos.qosClass), leeway: leeway)
    }

    /// Schedules an action to be executed asynchronously.
    public final func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        configuration.schedule(state, action: action)
    }

    /// Schedules an action to be executed after `dueTime`.
    public final func scheduleRelative<StateType>(_ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Schedules a periodic piece of work with a Dispatch timer.
    public func schedulePeriodic<StateType>(_ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval, action: @escaping (StateType) -> StateType) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
