extension ObservableType {
    /// Emits elements from the source observable sequence, or a default element if the source completes empty.
    public func ifEmpty(default: Element) -> Observable<Element> {
        ifEmpty(switchTo: Observable.just(`default`))
    }

    /// Returns the elements of the source sequence, or the elements of `other` if the source completes empty.
    public func ifEmpty(switchTo other: Observable<Element>) -> Observable<Element> {
        SwitchIfEmpty(source: asObservable(), ifEmpty: other)
    }
}

final private class SwitchIfEmptySinkIter<Observer: ObserverType>: ObserverType {
    typealias Element = Observer.Element

    private let parent: SwitchIfEmptySink<Observer>

    init(parent: SwitchIfEmptySink<Observer>) {
        self.parent = parent
    }

    func on(_ event: Event<Element>) {
        parent.forwardOn(event)
        if event.isStopEvent {
            parent.dispose()
        }
    }
}

final private class SwitchIfEmptySink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let ifEmpty: Observable<Element>
    private var isEmpty = true
    private let ifEmptySubscription = SingleAssignmentDisposable()

    init(ifEmpty: Observable<Element>, observer: Observer, cancel: Cancelable) {
        self.ifEmpty = ifEmpty
        super.init(observer: observer, cancel: cancel)
    }

    func run(_ source: Observable<Element>) -> Disposable {
        let subscription = source.subscribe(self)
        return Disposables.create(subscription, ifEmptySubscription)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            isEmpty = false
            forwardOn(event)
        case .error:
            forwardOn(event)
            dispose()
        case .completed:
            guard isEmpty else {
                forwardOn(.completed)
                dispose()
                return
            }
            ifEmptySubscription.setDisposable(ifEmpty.subscribe(SwitchIfEmptySinkIter(parent: self)))
        }
    }
}

final private class SwitchIfEmpty<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let ifEmpty: Observable<Element>

    init(source: Observable<Element>, ifEmpty: Observable<Element>) {
        self.source = source
        self.ifEmpty = ifEmpty
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = SwitchIfEmptySink(ifEmpty: ifEmpty, observer: observer, cancel: cancel)
        let subscription = sink.run(source)
        return (sink: sink, subscription: subscription)
    }
}
