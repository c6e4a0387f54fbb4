import Dispatch
import Synchronization

/// Makes the scheduler each new `Driver`/`Signal` delivers on, and lets tests replace it.
///
/// RxCocoa delivers on the main thread. A server has no main thread, and funnelling every
/// shared sequence through one thread would serialise the whole process. What matters is
/// the same property: the events of one shared sequence are delivered serially. So the
/// default `make` returns a new `SerialDispatchQueueScheduler` for every shared sequence
/// (every conversion or time-based operator): its own serial queue, which targets the
/// global concurrent pool. Sequences run in parallel; each one's events never overlap.
///
/// Tests swap it for a virtual-time scheduler:
///
/// ```swift
/// SharingScheduler.mock(scheduler: testScheduler) {
///     let driver = subject.asDriver(onErrorJustReturn: 0)
///     ...
/// }
/// ```
public enum SharingScheduler {
    /// A factory boxed so it can live in a lock; only tests replace it.
    private final class Factory: @unchecked Sendable {
        let make: () -> any SchedulerType
        init(_ make: @escaping () -> any SchedulerType) { self.make = make }
    }

    private static let current = Mutex(Factory {
        SerialDispatchQueueScheduler(queue: .global(), internalSerialQueueName: "signalbox.rx.sharing")
    })

    /// The factory of the scheduler a new shared sequence delivers on.
    public static var make: () -> any SchedulerType {
        current.withLock { $0 }.make
    }

    /// Runs `action` with every shared sequence built in it delivering on `scheduler`.
    ///
    /// The replacement is process-wide and undone when `action` returns; meant for tests.
    public static func mock(scheduler: any SchedulerType, action: () throws -> Void) rethrows {
        try mock(makeScheduler: { scheduler }, action: action)
    }

    /// Runs `action` with `makeScheduler` as the factory; undone when `action` returns.
    public static func mock(
        makeScheduler: @escaping () -> any SchedulerType,
        action: () throws -> Void
    ) rethrows {
        let replacement = Factory(makeScheduler)
        let original = current.withLock { factory in
            let original = factory
            factory = replacement
            return original
        }
        defer { current.withLock { $0 = original } }
        try action()
    }
}
