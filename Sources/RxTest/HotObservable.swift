import Rx

/// A "hot" observable: the recorded events happen at their absolute times whether
/// anyone is subscribed or not; subscribers see those after they subscribe.
final class HotObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    private var nextKey = 0
    private var observers: [(key: Int, observer: AnyObserver<Element>)] = []

    override init(testScheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        super.init(testScheduler: testScheduler, recordedEvents: recordedEvents)

        for recordedEvent in recordedEvents {
            // Held strongly, as in RxTest: the scheduler keeps a hot observable alive
            // until its last recorded event has happened.
            testScheduler.scheduleAt(recordedEvent.time) {
                for entry in self.observers {
                    entry.observer.on(recordedEvent.value)
                }
            }
        }
    }

    /// Subscribes `observer` to receive events for this sequence.
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        let key = nextKey
        nextKey += 1
        observers.append((key, observer.asObserver()))
        subscriptions.append(Subscription(testScheduler.clock))

        let i = subscriptions.count - 1

        return Disposables.create { [weak self] in
            guard let self else { return }
            self.observers.removeAll { $0.key == key }
            let existing = self.subscriptions[i]
            self.subscriptions[i] = Subscription(existing.subscribe, self.testScheduler.clock)
        }
    }
}
