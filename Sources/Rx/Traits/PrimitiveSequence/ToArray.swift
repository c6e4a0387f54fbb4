extension ObservableType {
    /// Converts an Observable into a Single that emits the whole sequence as a single array and then terminates.
    ///
    /// For aggregation behavior see `reduce`.
    public func toArray() -> Single<[Element]> {
        ToArray(source: asObservable()).asSingle()
    }
}

final private class ToArraySink<SourceType, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable where Observer.Element == [SourceType] {
    private var list: [SourceType] = []

    func onNext(_ element: SourceType) {
        list.append(element)
    }

    func on(_ event: Event<SourceType>) {
        switch event {
        case .next(let value):
            list.append(value)
        case .error(let e):
            forwardOn(.error(e))
            dispose()
        case .completed:
            forwardOn(.next(list))
            forwardOn(.completed)
            dispose()
        }
    }
}

final private class ToArray<SourceType>: Producer<[SourceType]>, @unchecked Sendable {
    private let source: Observable<SourceType>

    init(source: Observable<SourceType>) {
        self.source = source
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == [SourceType] {
        let sink = ToArraySink(observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink: sink, subscription: subscription)
    }
}
