import Rx

/// Observable sequence that records subscription lifetimes and timestamped events sent to observers.
public class TestableObservable<Element>: ObservableType, @unchecked Sendable {
    // `@unchecked`: used from the test scheduler's thread only, as in RxTest.

    /// Subscriptions recorded during observable lifetime.
    public internal(set) var subscriptions: [Subscription]

    /// List of events to replay for all subscribers.
    ///
    /// Event times represent absolute `TestScheduler` time.
    public internal(set) var recordedEvents: [Recorded<Event<Element>>]

    /// Parent test scheduler.
    internal let testScheduler: TestScheduler

    init(testScheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        self.recordedEvents = recordedEvents
        self.testScheduler = testScheduler
        subscriptions = []
        Resources.incrementTotal()
    }

    /// Subscribes `observer`; implemented by the hot and cold variants.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        fatalError("Abstract method")
    }

    deinit {
        Resources.decrementTotal()
    }
}
