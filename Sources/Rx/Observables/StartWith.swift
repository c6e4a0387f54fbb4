extension ObservableType {
    /// Prepends a sequence of values to an observable sequence.
    public func startWith(_ elements: Element ...) -> Observable<Element> {
        StartWith(source: asObservable(), elements: elements)
    }
}

final private class StartWith<Element>: Producer<Element>, @unchecked Sendable {
    private let elements: [Element]
    private let source: Observable<Element>

    init(source: Observable<Element>, elements: [Element]) {
        self.source = source
        self.elements = elements
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        for element in elements {
            observer.on(.next(element))
        }
        return (sink: Disposables.create(), subscription: source.subscribe(observer))
    }
}
