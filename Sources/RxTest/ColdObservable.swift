import Rx

/// A "cold" observable: each subscription replays the recorded events at their
/// times relative to the subscription.
final class ColdObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    override init(testScheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        super.init(testScheduler: testScheduler, recordedEvents: recordedEvents)
    }

    /// Subscribes `observer` to receive events for this sequence.
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        subscriptions.append(Subscription(testScheduler.clock))

        let i = subscriptions.count - 1
        let disposed = BooleanDisposable()

        for recordedEvent in recordedEvents {
            _ = testScheduler.scheduleRelativeVirtual((), dueTime: recordedEvent.time) { _ in
                if !disposed.isDisposed {
                    observer.on(recordedEvent.value)
                }
                return Disposables.create()
            }
        }

        return Disposables.create { [weak self] in
            disposed.dispose()
            guard let self else { return }
            let existing = self.subscriptions[i]
            self.subscriptions[i] = Subscription(existing.subscribe, self.testScheduler.clock)
        }
    }
}
