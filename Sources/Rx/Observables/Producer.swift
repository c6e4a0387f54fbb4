import Synchronization

/// Base of operators: each subscription builds a sink that holds its state.
///
/// Subscriptions are trampolined on `CurrentThreadScheduler`, as in RxSwift, so
/// recursive scheduling inside a subscription does not grow the stack.
class Producer<Element>: Observable<Element>, @unchecked Sendable {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        if !CurrentThreadScheduler.isScheduleRequired {
            return subscribeNow(observer)
        }
        return CurrentThreadScheduler.runAsTrampoline { subscribeNow(observer) }
    }

    @inline(__always)
    private func subscribeNow<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        let disposer = SinkDisposer()
        let sinkAndSubscription = run(observer, cancel: disposer)
        disposer.setSinkAndSubscription(sink: sinkAndSubscription.sink, subscription: sinkAndSubscription.subscription)
        return disposer
    }

    func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        rxAbstractMethod()
    }
}

/// Disposes a sink and its source subscription once, even if disposal comes
/// before they are set (then they are disposed as soon as they are set).
final class SinkDisposer: Cancelable, @unchecked Sendable {
    // `@unchecked`: `sink`/`subscription` are written before the `sinkAndSubscriptionSet`
    // bit is published and read only by whoever observes both bits.
    private enum Flag {
        static let disposed = 1
        static let sinkAndSubscriptionSet = 2
    }

    private let state = Atomic<Int>(0)
    private var sink: Disposable?
    private var subscription: Disposable?

    var isDisposed: Bool {
        state.load(ordering: .acquiring) & Flag.disposed != 0
    }

    func setSinkAndSubscription(sink: Disposable, subscription: Disposable) {
        self.sink = sink
        self.subscription = subscription
        let previous = state.bitwiseOr(Flag.sinkAndSubscriptionSet, ordering: .acquiringAndReleasing).oldValue
        if previous & Flag.sinkAndSubscriptionSet != 0 {
            rxFatalError("Sink and subscription were already set")
        }
        if previous & Flag.disposed != 0 {
            sink.dispose()
            subscription.dispose()
            self.sink = nil
            self.subscription = nil
        }
    }

    func dispose() {
        let previous = state.bitwiseOr(Flag.disposed, ordering: .acquiringAndReleasing).oldValue
        if previous & Flag.disposed != 0 { return }
        if previous & Flag.sinkAndSubscriptionSet != 0 {
            guard let sink = self.sink, let subscription = self.subscription else {
                rxFatalError("Sink and subscription not set")
            }
            sink.dispose()
            subscription.dispose()
            self.sink = nil
            self.subscription = nil
        }
    }
}
