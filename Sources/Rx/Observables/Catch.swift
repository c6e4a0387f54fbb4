extension ObservableType {
    /// Continues an observable sequence that is terminated by an error with the observable sequence produced by the handler.
    public func `catch`(_ handler: @escaping (Swift.Error) throws -> Observable<Element>) -> Observable<Element> {
        Catch(source: asObservable(), handler: handler)
    }

    /// Continues an observable sequence that is terminated by an error with a single element:
    /// emits `element` and completes instead of the error.
    public func catchAndReturn(_ element: Element) -> Observable<Element> {
        Catch(source: asObservable(), handler: { _ in Observable.just(element) })
    }

    /// Continues an observable sequence that is terminated by an error with the next
    /// observable sequence of `sequence`, read lazily; fails with the last error when
    /// `sequence` runs out after an error, and completes at once when it is empty.
    public static func `catch`<Sources: Swift.Sequence>(_ sequence: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        Observable.deferred {
            var iterator = sequence.makeIterator()
            func continuing(after error: Swift.Error?) -> Observable<Element> {
                guard let source = iterator.next() else {
                    return error.map { Observable.error($0) } ?? Observable.empty()
                }
                return source.catch { continuing(after: $0) }
            }
            return continuing(after: nil)
        }
    }
}

final private class CatchSinkProxy<Observer: ObserverType>: ObserverType {
    typealias Element = Observer.Element
    typealias Parent = CatchSink<Observer>

    private let parent: Parent

    init(parent: Parent) {
        self.parent = parent
    }

    func on(_ event: Event<Element>) {
        parent.forwardOn(event)
        switch event {
        case .next: break
        case .error, .completed: parent.dispose()
        }
    }
}

final private class CatchSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element
    typealias Parent = Catch<Element>

    private let parent: Parent
    private let subscription = SerialDisposable()

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        let d1 = SingleAssignmentDisposable()
        subscription.disposable = d1
        d1.setDisposable(parent.source.subscribe(self))
        return subscription
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            forwardOn(event)
        case .completed:
            forwardOn(event)
            dispose()
        case .error(let error):
            do {
                let catchSequence = try parent.handler(error)
                let observer = CatchSinkProxy(parent: self)
                subscription.disposable = catchSequence.subscribe(observer)
            } catch let e {
                forwardOn(.error(e))
                dispose()
            }
        }
    }
}

final private class Catch<Element>: Producer<Element>, @unchecked Sendable {
    typealias Handler = (Swift.Error) throws -> Observable<Element>

    fileprivate let source: Observable<Element>
    fileprivate let handler: Handler

    init(source: Observable<Element>, handler: @escaping Handler) {
        self.source = source
        self.handler = handler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = CatchSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
