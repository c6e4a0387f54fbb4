import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// The current factory. A pthread lock rather than `Mutex`: ThreadSanitizer on Linux
    /// does not see `Mutex`'s contended path and would report false races.
    private final class FactoryStore: @unchecked Sendable {
        // `@unchecked`: `factory` is read and written only under `lock`.
        private let lock = RecursiveLock()
        private var factory: () -> any SchedulerType

        init(_ factory: @escaping () -> any SchedulerType) { self.factory = factory }

        var current: () -> any SchedulerType { lock.performLocked { factory } }

        /// Installs `replacement`; returns the factory it replaced.
        func swap(_ replacement: @escaping () -> any SchedulerType) -> () -> any SchedulerType {
            lock.performLocked {
                let previous = factory
                factory = replacement
                return previous
            }
        }
    }

    private static let store = FactoryStore {
        SerialDispatchQueueScheduler(queue: .global(), internalSerialQueueName: "signalbox.rx.sharing")
    }

    /// The factory of the scheduler a new shared sequence delivers on: the one
    /// `building(deliveringOn:_:)` set for this thread, else the process-wide one.
    public static var make: () -> any SchedulerType {
        if let pointer = pthread_getspecific(threadSchedulerKey) {
            let scheduler = Unmanaged<ThreadScheduler>.fromOpaque(pointer).takeUnretainedValue().scheduler
            return { scheduler }
        }
        return store.current
    }

    /// Runs `body` with every shared sequence built in it, on this thread,
    /// delivering on `scheduler`, which must be serial.
    ///
    /// For a server that builds a client's sequences on the serial queue that
    /// serves the client: their events then arrive on that queue, with no queue
    /// of their own and no second hop. Other threads are not affected.
    public static func building<Result>(deliveringOn scheduler: any SchedulerType, _ body: () throws -> Result) rethrows -> Result {
        let previous = pthread_getspecific(threadSchedulerKey)
        let current = ThreadScheduler(scheduler)
        pthread_setspecific(threadSchedulerKey, Unmanaged.passUnretained(current).toOpaque())
        defer {
            pthread_setspecific(threadSchedulerKey, previous)
            withExtendedLifetime(current) {}
        }
        return try body()
    }

    private final class ThreadScheduler {
        let scheduler: any SchedulerType
        init(_ scheduler: any SchedulerType) { self.scheduler = scheduler }
    }

    private static let threadSchedulerKey: pthread_key_t = {
        var key = pthread_key_t()
        guard pthread_key_create(&key, nil) == 0 else { rxFatalError("pthread_key_create failed") }
        return key
    }()

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
        let original = store.swap(makeScheduler)
        defer { _ = store.swap(original) }
        try action()
    }
}
