extension ObservableType {
    /// Merges the specified observable sequences into one observable sequence by using the selector function whenever any of the observable sequences produces an element.
    /// An empty collection completes at once.
    public static func combineLatest<Collection: Swift.Collection>(_ collection: Collection, resultSelector: @escaping ([Collection.Element.Element]) throws -> Element) -> Observable<Element> where Collection.Element: ObservableType {
        CombineLatestCollectionType(sources: collection.map { $0.asObservable() }, resultSelector: resultSelector)
    }

    /// Merges the specified observable sequences into one observable sequence whenever any of the observable sequences produces an element.
    public static func combineLatest<Collection: Swift.Collection>(_ collection: Collection) -> Observable<[Element]> where Collection.Element: ObservableType, Collection.Element.Element == Element {
        CombineLatestCollectionType(sources: collection.map { $0.asObservable() }, resultSelector: { $0 })
    }
}

final private class CombineLatestCollectionTypeSink<SourceElement, Observer: ObserverType>: CombineLatestSink<Observer>, @unchecked Sendable {
    typealias Parent = CombineLatestCollectionType<SourceElement, Observer.Element>

    private let parent: Parent
    private var values: [SourceElement?]

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        values = [SourceElement?](repeating: nil, count: parent.sources.count)
        super.init(arity: parent.sources.count, observer: observer, cancel: cancel)
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
            let observer = CombineLatestObserver<SourceElement>(lock: lock, parent: self, index: index, setLatestValue: { self.values[index] = $0 }, this: subscription)
            subscriptions.append(subscription)
            subscription.setDisposable(source.subscribe(observer))
        }
        return Disposables.create(subscriptions)
    }

    override func getResult() throws -> Observer.Element {
        try parent.resultSelector(values.map { $0! })
    }
}

final private class CombineLatestCollectionType<SourceElement, Result>: Producer<Result>, @unchecked Sendable {
    typealias ResultSelector = ([SourceElement]) throws -> Result

    let sources: [Observable<SourceElement>]
    let resultSelector: ResultSelector

    init(sources: [Observable<SourceElement>], resultSelector: @escaping ResultSelector) {
        self.sources = sources
        self.resultSelector = resultSelector
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Result {
        let sink = CombineLatestCollectionTypeSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
