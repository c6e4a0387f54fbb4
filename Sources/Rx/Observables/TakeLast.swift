extension ObservableType {
    /// The last `count` elements, emitted when the source completes.
    public func takeLast(_ count: Int) -> Observable<Element> {
        TakeLast(source: asObservable(), count: count)
    }
}

final private class TakeLastSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let count: Int
    private var elements: Queue<Element>

    init(count: Int, observer: Observer, cancel: Cancelable) {
        self.count = count
        elements = Queue(capacity: Swift.min(count, 16) + 1)
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            elements.enqueue(value)
            if elements.count > count { _ = elements.dequeue() }
        case .error:
            forwardOn(event)
            dispose()
        case .completed:
            for element in elements.elements { forwardOn(.next(element)) }
            forwardOn(.completed)
            dispose()
        }
    }
}

final private class TakeLast<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let count: Int

    init(source: Observable<Element>, count: Int) {
        if count < 0 { rxFatalError("count can't be negative") }
        self.source = source
        self.count = count
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = TakeLastSink(count: count, observer: observer, cancel: cancel)
        return (sink: sink, subscription: source.subscribe(sink))
    }
}
