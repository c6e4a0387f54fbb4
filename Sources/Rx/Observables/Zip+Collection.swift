extension ObservableType {
    /// Merges the specified observable sequences into one observable sequence by using the selector function whenever all of the observable sequences have produced an element at a corresponding index.
    /// An empty collection completes at once.
    public static func zip<Collection: Swift.Collection>(_ collection: Collection, resultSelector: @escaping ([Collection.Element.Element]) throws -> Element) -> Observable<Element> where Collection.Element: ObservableType {
        ZipCollectionType(sources: collection.map { $0.asObservable() }, resultSelector: resultSelector)
    }

    /// Merges the specified observable sequences into one observable sequence whenever all of the observable sequences have produced an element at a corresponding index.
    public static func zip<Collection: Swift.Collection>(_ collection: Collection) -> Observable<[Element]> where Collection.Element: ObservableType, Collection.Element.Element == Element {
        ZipCollectionType(sources: collection.map { $0.asObservable() }, resultSelector: { $0 })
    }
}

final private class ZipCollectionTypeSink<SourceElement, Observer: ObserverType>: ZipSink<Observer>, @unchecked Sendable {
    typealias Parent = ZipCollectionType<SourceElement, Observer.Element>

    private let parent: Parent
    private var values: [Queue<SourceElement>]

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        values = [Queue<SourceElement>](repeating: Queue(capacity: 2), count: parent.sources.count)
        super.init(arity: parent.sources.count, observer: observer, cancel: cancel)
    }

    override func hasElements(_ index: Int) -> Bool {
        !values[index].isEmpty
    }

    override func getResult() throws -> Observer.Element {
        var elements: [SourceElement] = []
        elements.reserveCapacity(values.count)
        for index in values.indices {
            elements.append(values[index].dequeue()!)
        }
        return try parent.resultSelector(elements)
    }

    func run() -> Disposable {
        if parent.sources.isEmpty {
            forwardOn(.completed)
            dispose()
            return Disposables.create()
        }
        var subscriptions: [Disposable] = []
        subscriptions.reserveCapacity(parent.sources.count)
        for (index, source) in parent.sources.enumerated() {
            let subscription = SingleAssignmentDisposable()
            let observer = ZipObserver<SourceElement>(lock: lock, parent: self, index: index, setNextValue: { self.values[index].enqueue($0) }, this: subscription)
            subscriptions.append(subscription)
            subscription.setDisposable(source.subscribe(observer))
        }
        return Disposables.create(subscriptions)
    }
}

final private class ZipCollectionType<SourceElement, Result>: Producer<Result>, @unchecked Sendable {
    typealias ResultSelector = ([SourceElement]) throws -> Result

    let sources: [Observable<SourceElement>]
    let resultSelector: ResultSelector

    init(sources: [Observable<SourceElement>], resultSelector: @escaping ResultSelector) {
        self.sources = sources
        self.resultSelector = resultSelector
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Result {
        let sink = ZipCollectionTypeSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
