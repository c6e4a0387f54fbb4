extension ObservableType {
    /// Returns an observable sequence that invokes the specified factory function whenever a new observer subscribes.
    ///
    /// A thrown error is delivered as the sequence's error.
    public static func deferred(_ observableFactory: @escaping () throws -> Observable<Element>) -> Observable<Element> {
        Deferred(observableFactory: observableFactory)
    }
}

final private class DeferredSink<Source: ObservableType, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable where Source.Element == Observer.Element  {
    typealias Element = Observer.Element

    func run(_ factory: () throws -> Source) -> Disposable {
        do {
            let result = try factory()
            return result.subscribe(self)
        } catch let e {
            forwardOn(.error(e))
            dispose()
            return Disposables.create()
        }
    }

    /// Elements pass without an `Event` built for them (see ``ObserverType/onNext(_:)``).
    func onNext(_ element: Element) {
        forwardNext(element)
    }

    func on(_ event: Event<Element>) {
        forwardOn(event)
        switch event {
        case .next: break
        case .error, .completed: dispose()
        }
    }
}

final private class Deferred<Source: ObservableType>: Producer<Source.Element>, @unchecked Sendable {
    typealias Factory = () throws -> Source

    private let observableFactory: Factory

    init(observableFactory: @escaping Factory) {
        self.observableFactory = observableFactory
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Source.Element {
        let sink = DeferredSink<Source, Observer>(observer: observer, cancel: cancel)
        let subscription = sink.run(observableFactory)
        return (sink: sink, subscription: subscription)
    }
}
