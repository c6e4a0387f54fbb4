import Rx

/// Virtual time scheduler used for testing applications and libraries built using Rx.
///
/// Work runs only inside `start()` / `advanceTo(_:)`, in order of virtual time.
open class TestScheduler: VirtualTimeScheduler<TestSchedulerVirtualTimeConverter>, @unchecked Sendable {
    /// Default values of scheduler times.
    public struct Defaults {
        /// Default absolute time when to create tested observable sequence.
        public static let created = 100
        /// Default absolute time when to subscribe to tested observable sequence.
        public static let subscribed = 200
        /// Default absolute time when to dispose subscription to tested observable sequence.
        public static let disposed = 1000
    }

    private let simulateProcessingDelay: Bool

    /// Creates a new test scheduler.
    ///
    /// - parameter initialClock: Initial value for the clock.
    /// - parameter resolution: Real time [TimeInterval] = ticks * resolution
    /// - parameter simulateProcessingDelay: When true, if something is scheduled right `now`,
    ///    it will be scheduled to `now + 1` in virtual time.
    public init(initialClock: TestTime, resolution: Double = 1.0, simulateProcessingDelay: Bool = true) {
        self.simulateProcessingDelay = simulateProcessingDelay
        super.init(initialClock: initialClock, converter: TestSchedulerVirtualTimeConverter(resolution: resolution))
    }

    /// Creates a hot observable using the specified timestamped events.
    ///
    /// - parameter events: Events to surface through the created sequence at their specified absolute virtual times.
    public func createHotObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        HotObservable(testScheduler: self, recordedEvents: events)
    }

    /// Creates a cold observable using the specified timestamped events.
    ///
    /// - parameter events: Events to surface through the created sequence at their specified virtual time offsets from the sequence subscription time.
    public func createColdObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        ColdObservable(testScheduler: self, recordedEvents: events)
    }

    /// Creates an observer that records received events and timestamps those.
    public func createObserver<Element>(_ type: Element.Type) -> TestableObserver<Element> {
        TestableObserver(scheduler: self)
    }

    /// Schedules an action to be executed at the specified virtual time.
    public func scheduleAt(_ time: TestTime, action: @escaping () -> Void) {
        _ = scheduleAbsoluteVirtual((), time: time) { _ in
            action()
            return Disposables.create()
        }
    }

    /// Adjusts time of scheduling before adding item to schedule queue. If scheduled time is `<= clock`, then it is scheduled at `clock + 1`.
    override open func adjustScheduledTime(_ time: VirtualTime) -> VirtualTime {
        time <= clock ? clock + (simulateProcessingDelay ? 1 : 0) : time
    }

    /// Starts the test scheduler and uses the specified virtual times to invoke the factory function, subscribe to the resulting sequence, and dispose the subscription.
    ///
    /// - parameter created: Virtual time at which to invoke the factory to create an observable sequence.
    /// - parameter subscribed: Virtual time at which to subscribe to the created observable sequence.
    /// - parameter disposed: Virtual time at which to dispose the subscription.
    /// - parameter create: Factory method to create an observable sequence (or trait).
    /// - returns: Observer with timestamped recordings of events that were received during the virtual time window when the subscription to the source sequence was active.
    public func start<Source: ObservableConvertibleType>(
        created: TestTime = Defaults.created,
        subscribed: TestTime = Defaults.subscribed,
        disposed: TestTime = Defaults.disposed,
        create: @escaping () -> Source
    ) -> TestableObserver<Source.Element> {
        var source: Observable<Source.Element>?
        var subscription: Disposable?
        let observer = createObserver(Source.Element.self)

        _ = scheduleAbsoluteVirtual((), time: created) { _ in
            source = create().asObservable()
            return Disposables.create()
        }
        _ = scheduleAbsoluteVirtual((), time: subscribed) { _ in
            subscription = source!.subscribe(observer)
            return Disposables.create()
        }
        _ = scheduleAbsoluteVirtual((), time: disposed) { _ in
            subscription!.dispose()
            return Disposables.create()
        }

        start()
        return observer
    }

    /// `start(created:subscribed:disposed:create:)` with the RxSwift 5 spelling.
    public func start<Source: ObservableConvertibleType>(_ created: TestTime, subscribed: TestTime, disposed: TestTime, create: @escaping () -> Source) -> TestableObserver<Source.Element> {
        start(created: created, subscribed: subscribed, disposed: disposed, create: create)
    }

    /// `start(created:subscribed:disposed:create:)` with default creation and subscription times.
    public func start<Source: ObservableConvertibleType>(_ disposed: TestTime, create: @escaping () -> Source) -> TestableObserver<Source.Element> {
        start(created: Defaults.created, subscribed: Defaults.subscribed, disposed: disposed, create: create)
    }
}
