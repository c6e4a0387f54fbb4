import Synchronization

extension ObservableType {
    /// Repeats the source observable sequence until it successfully terminates.
    public func retry() -> Observable<Element> {
        Retry(source: asObservable(), maxAttemptCount: nil)
    }

    /// Repeats the source observable sequence the specified number of times in case of an error or until it successfully terminates.
    ///
    /// - parameter maxAttemptCount: Maximum number of times to subscribe the sequence (the first subscription included).
    public func retry(_ maxAttemptCount: Int) -> Observable<Element> {
        Retry(source: asObservable(), maxAttemptCount: maxAttemptCount)
    }
}

/// Resubscribes on error. Synchronous failures loop instead of recursing.
final private class RetrySink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let source: Observable<Element>
    private let maxAttemptCount: Int?
    private var attempts = 0
    private let wip = Atomic<Int>(0)
    private let current = SerialDisposable()

    init(source: Observable<Element>, maxAttemptCount: Int?, observer: Observer, cancel: Cancelable) {
        self.source = source
        self.maxAttemptCount = maxAttemptCount
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        if let maxAttemptCount, maxAttemptCount <= 0 {
            forwardOn(.completed)
            dispose()
            return current
        }
        subscribeAgain()
        return current
    }

    private func subscribeAgain() {
        if wip.add(1, ordering: .acquiringAndReleasing).oldValue != 0 { return }
        repeat {
            if isDisposed { return }
            attempts += 1
            let subscription = SingleAssignmentDisposable()
            current.disposable = subscription
            subscription.setDisposable(source.subscribe(self))
        } while wip.subtract(1, ordering: .acquiringAndReleasing).newValue != 0
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            forwardOn(event)
        case .completed:
            forwardOn(event)
            dispose()
        case .error:
            if let maxAttemptCount, attempts >= maxAttemptCount {
                forwardOn(event)
                dispose()
            } else {
                subscribeAgain()
            }
        }
    }
}

final private class Retry<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let maxAttemptCount: Int?

    init(source: Observable<Element>, maxAttemptCount: Int?) {
        self.source = source
        self.maxAttemptCount = maxAttemptCount
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = RetrySink(source: source, maxAttemptCount: maxAttemptCount, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
