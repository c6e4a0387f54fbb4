extension ObservableType {
    /// Returns the elements from the source observable sequence until the other observable sequence produces an element.
    public func take<Source: ObservableType>(until other: Source) -> Observable<Element> {
        TakeUntil(source: asObservable(), other: other.asObservable())
    }

    /// Returns elements from an observable sequence until the specified condition is true.
    ///
    /// - parameter predicate: The condition that ends the sequence.
    /// - parameter behavior: Whether or not to include the last element matching the predicate. Defaults to `exclusive`.
    public func take(until predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior = .exclusive) -> Observable<Element> {
        TakeUntilPredicate(source: asObservable(), behavior: behavior, predicate: predicate)
    }

    /// Returns elements from an observable sequence as long as a specified condition is true.
    ///
    /// - parameter predicate: The condition that keeps the sequence going.
    /// - parameter behavior: Whether or not to include the last element not matching the predicate. Defaults to `exclusive`.
    public func take(while predicate: @escaping (Element) throws -> Bool, behavior: TakeBehavior = .exclusive) -> Observable<Element> {
        take(until: { try !predicate($0) }, behavior: behavior)
    }
}

/// Behaviors for the take operator family.
public enum TakeBehavior: Sendable {
    /// Include the last element matching the predicate.
    case inclusive
    /// Exclude the last element matching the predicate.
    case exclusive
}

// MARK: - take(until: other)

final private class TakeUntilSinkOther<Other, Observer: ObserverType>: ObserverType {
    typealias Parent = TakeUntilSink<Other, Observer>
    typealias Element = Other

    private let parent: Parent
    fileprivate let subscription = SingleAssignmentDisposable()

    init(parent: Parent) {
        self.parent = parent
    }

    func on(_ event: Event<Element>) {
        parent.lock.performLocked {
            switch event {
            case .next:
                parent.forwardOn(.completed)
                parent.dispose()
            case .error(let e):
                parent.forwardOn(.error(e))
                parent.dispose()
            case .completed:
                subscription.dispose()
            }
        }
    }
}

final private class TakeUntilSink<Other, Observer: ObserverType>: Sink<Observer>, ObserverType, SynchronizedOnType, @unchecked Sendable {
    typealias Element = Observer.Element
    typealias Parent = TakeUntil<Element, Other>

    private let parent: Parent
    let lock = RecursiveLock()

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        synchronizedOn(event)
    }

    func synchronized_on(_ event: Event<Element>) {
        switch event {
        case .next:
            forwardOn(event)
        case .error, .completed:
            forwardOn(event)
            dispose()
        }
    }

    func run() -> Disposable {
        let otherObserver = TakeUntilSinkOther(parent: self)
        let otherSubscription = parent.other.subscribe(otherObserver)
        otherObserver.subscription.setDisposable(otherSubscription)
        let sourceSubscription = parent.source.subscribe(self)
        return Disposables.create(otherObserver.subscription, sourceSubscription)
    }
}

final private class TakeUntil<Element, Other>: Producer<Element>, @unchecked Sendable {
    fileprivate let source: Observable<Element>
    fileprivate let other: Observable<Other>

    init(source: Observable<Element>, other: Observable<Other>) {
        self.source = source
        self.other = other
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = TakeUntilSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}

// MARK: - take(until: predicate)

final private class TakeUntilPredicateSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let parent: TakeUntilPredicate<Element>
    private var running = true

    init(parent: TakeUntilPredicate<Element>, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            if !running { return }
            do {
                running = try !parent.predicate(value)
            } catch let e {
                forwardOn(.error(e))
                dispose()
                return
            }
            if running {
                forwardOn(.next(value))
            } else {
                if parent.behavior == .inclusive {
                    forwardOn(.next(value))
                }
                forwardOn(.completed)
                dispose()
            }
        case .error, .completed:
            forwardOn(event)
            dispose()
        }
    }
}

final private class TakeUntilPredicate<Element>: Producer<Element>, @unchecked Sendable {
    typealias Predicate = (Element) throws -> Bool

    private let source: Observable<Element>
    fileprivate let predicate: Predicate
    fileprivate let behavior: TakeBehavior

    init(source: Observable<Element>, behavior: TakeBehavior, predicate: @escaping Predicate) {
        self.source = source
        self.behavior = behavior
        self.predicate = predicate
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = TakeUntilPredicateSink(parent: self, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink: sink, subscription: subscription)
    }
}
