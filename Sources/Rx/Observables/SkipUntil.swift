extension ObservableType {
    /// The elements of `self` emitted after `other` has produced an element.
    ///
    /// As in RxSwift, `self`'s completion is forwarded only once `other` has produced an
    /// element: if `other` completes without one, the result never completes.
    public func skip<Source: ObservableType>(until other: Source) -> Observable<Element> {
        SkipUntil(source: asObservable(), other: other.asObservable())
    }
}

final private class SkipUntilOtherObserver<Other, Observer: ObserverType>: ObserverType, @unchecked Sendable {
    typealias Element = Other
    typealias Parent = SkipUntilSink<Other, Observer>

    private let parent: Parent
    let subscription = SingleAssignmentDisposable()

    init(parent: Parent) {
        self.parent = parent
        Resources.incrementTotal()
    }

    func on(_ event: Event<Other>) {
        parent.lock.performLocked {
            switch event {
            case .next:
                parent.forwardElements = true
                subscription.dispose()
            case .error(let error):
                parent.forwardOn(.error(error))
                parent.dispose()
            case .completed:
                subscription.dispose()
            }
        }
    }

    deinit { Resources.decrementTotal() }
}

final private class SkipUntilSink<Other, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    let lock = RecursiveLock()
    var forwardElements = false
    private let sourceSubscription = SingleAssignmentDisposable()

    func on(_ event: Event<Element>) {
        lock.performLocked {
            switch event {
            case .next:
                if forwardElements { forwardOn(event) }
            case .error:
                forwardOn(event)
                dispose()
            case .completed:
                if forwardElements { forwardOn(event) }
                dispose()
            }
        }
    }

    func run(source: Observable<Element>, other: Observable<Other>) -> Disposable {
        let otherObserver = SkipUntilOtherObserver(parent: self)
        sourceSubscription.setDisposable(source.subscribe(self))
        otherObserver.subscription.setDisposable(other.subscribe(otherObserver))
        return Disposables.create(sourceSubscription, otherObserver.subscription)
    }
}

final private class SkipUntil<Element, Other>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let other: Observable<Other>

    init(source: Observable<Element>, other: Observable<Other>) {
        self.source = source
        self.other = other
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = SkipUntilSink<Other, Observer>(observer: observer, cancel: cancel)
        let subscription = sink.run(source: source, other: other)
        return (sink: sink, subscription: subscription)
    }
}
