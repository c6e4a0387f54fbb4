extension ObservableType {
    /// Projects each element into an optional form and drops the `nil`s.
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Observable<Result> {
        CompactMap(source: asObservable(), transform: transform)
    }
}

final private class CompactMapSink<SourceType, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Transform = (SourceType) throws -> Observer.Element?

    private let transform: Transform

    init(transform: @escaping Transform, observer: Observer, cancel: Cancelable) {
        self.transform = transform
        super.init(observer: observer, cancel: cancel)
    }

    func onNext(_ element: SourceType) {
        do {
            if let mappedElement = try transform(element) {
                forwardNext(mappedElement)
            }
        } catch let e {
            forwardError(e)
            dispose()
        }
    }

    func on(_ event: Event<SourceType>) {
        switch event {
        case .next(let element):
            onNext(element)
        case .error(let error):
            forwardError(error)
            dispose()
        case .completed:
            forwardCompleted()
            dispose()
        }
    }
}

final private class CompactMap<SourceType, ResultType>: Producer<ResultType>, @unchecked Sendable {
    typealias Transform = (SourceType) throws -> ResultType?

    private let source: Observable<SourceType>
    private let transform: Transform

    init(source: Observable<SourceType>, transform: @escaping Transform) {
        self.source = source
        self.transform = transform
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == ResultType {
        let sink = CompactMapSink(transform: transform, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink: sink, subscription: subscription)
    }
}
