extension ObservableType {
    /// The element at `index` (0-based), then completion; fails with
    /// `RxError.argumentOutOfRange` when the source completes before it.
    public func element(at index: Int) -> Observable<Element> {
        ElementAt(source: asObservable(), index: index, throwOnEmpty: true)
    }
}

final private class ElementAtSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private var remaining: Int
    private let throwOnEmpty: Bool

    init(index: Int, throwOnEmpty: Bool, observer: Observer, cancel: Cancelable) {
        remaining = index
        self.throwOnEmpty = throwOnEmpty
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if remaining == 0 {
                forwardOn(event)
                forwardOn(.completed)
                dispose()
            }
            remaining -= 1
        case .error:
            forwardOn(event)
            dispose()
        case .completed:
            if throwOnEmpty {
                forwardOn(.error(RxError.argumentOutOfRange))
            } else {
                forwardOn(.completed)
            }
            dispose()
        }
    }
}

final private class ElementAt<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let index: Int
    private let throwOnEmpty: Bool

    init(source: Observable<Element>, index: Int, throwOnEmpty: Bool) {
        if index < 0 { rxFatalError("index can't be negative") }
        self.source = source
        self.index = index
        self.throwOnEmpty = throwOnEmpty
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ElementAtSink(index: index, throwOnEmpty: throwOnEmpty, observer: observer, cancel: cancel)
        return (sink: sink, subscription: source.subscribe(sink))
    }
}
