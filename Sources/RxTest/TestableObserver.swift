import Rx

/// Observer that records received events together with the virtual time they were received on.
public final class TestableObserver<Element>: ObserverType {
    /// Scheduler that determines the time of recorded events.
    public let scheduler: TestScheduler

    /// Recorded events.
    public private(set) var events = [Recorded<Event<Element>>]()

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// Notify observer about sequence event.
    public func on(_ event: Event<Element>) {
        events.append(Recorded(time: scheduler.clock, value: event))
    }
}
