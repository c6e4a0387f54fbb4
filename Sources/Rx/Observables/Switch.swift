extension ObservableType {
    /// Projects each element into a new sequence and forwards only the most recent one:
    /// a new element disposes the inner subscription in flight before the next one starts;
    /// completion of the source waits for the current inner sequence.
    public func flatMapLatest<Source: ObservableConvertibleType>(_ selector: @escaping (Element) throws -> Source) -> Observable<Source.Element> {
        FlatMapLatest(source: asObservable(), selector: selector)
    }
}

extension ObservableType where Element: ObservableConvertibleType {
    /// Transforms an observable sequence of observable sequences into an observable sequence
    /// producing values only from the most recent observable sequence.
    public func switchLatest() -> Observable<Element.Element> {
        FlatMapLatest(source: asObservable(), selector: { $0 })
    }
}

private final class SwitchSink<SourceElement, SourceSequence: ObservableConvertibleType, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable where SourceSequence.Element == Observer.Element {
    typealias Element = SourceElement
    typealias Selector = (SourceElement) throws -> SourceSequence

    private let subscriptions = SingleAssignmentDisposable()
    private let innerSubscription = SerialDisposable()
    private let selector: Selector

    let lock = RecursiveLock()

    // state
    fileprivate var stopped = false
    fileprivate var latest = 0
    fileprivate var hasLatest = false

    init(selector: @escaping Selector, observer: Observer, cancel: Cancelable) {
        self.selector = selector
        super.init(observer: observer, cancel: cancel)
    }

    func run(_ source: Observable<SourceElement>) -> Disposable {
        let subscription = source.subscribe(self)
        subscriptions.setDisposable(subscription)
        return Disposables.create(subscriptions, innerSubscription)
    }

    private func nextElementArrived(element: Element) -> (Int, Observable<Observer.Element>)? {
        lock.performLocked {
            do {
                let observable = try selector(element).asObservable()
                hasLatest = true
                latest = latest &+ 1
                return (latest, observable)
            } catch let error {
                forwardOn(.error(error))
                dispose()
            }
            return nil
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            if let (latest, observable) = nextElementArrived(element: element) {
                let d = SingleAssignmentDisposable()
                // Replacing the serial disposable disposes the previous inner subscription first.
                innerSubscription.disposable = d
                let observer = SwitchSinkIter(parent: self, id: latest, this: d)
                let disposable = observable.subscribe(observer)
                d.setDisposable(disposable)
            }
        case .error(let error):
            lock.performLocked {
                forwardOn(.error(error))
                dispose()
            }
        case .completed:
            lock.performLocked {
                stopped = true
                subscriptions.dispose()
                if !hasLatest {
                    forwardOn(.completed)
                    dispose()
                }
            }
        }
    }
}

private final class SwitchSinkIter<SourceElement, SourceSequence: ObservableConvertibleType, Observer: ObserverType>: ObserverType where SourceSequence.Element == Observer.Element {
    typealias Element = Observer.Element
    typealias Parent = SwitchSink<SourceElement, SourceSequence, Observer>

    private let parent: Parent
    private let id: Int
    private let this: Disposable

    init(parent: Parent, id: Int, this: Disposable) {
        self.parent = parent
        self.id = id
        self.this = this
    }

    func on(_ event: Event<Element>) {
        parent.lock.performLocked {
            switch event {
            case .next: break
            case .error, .completed: this.dispose()
            }
            if parent.latest != id {
                return
            }
            switch event {
            case .next:
                parent.forwardOn(event)
            case .error:
                parent.forwardOn(event)
                parent.dispose()
            case .completed:
                parent.hasLatest = false
                if parent.stopped {
                    parent.forwardOn(event)
                    parent.dispose()
                }
            }
        }
    }
}

final private class FlatMapLatest<SourceElement, SourceSequence: ObservableConvertibleType>: Producer<SourceSequence.Element>, @unchecked Sendable {
    typealias Selector = (SourceElement) throws -> SourceSequence

    private let source: Observable<SourceElement>
    private let selector: Selector

    init(source: Observable<SourceElement>, selector: @escaping Selector) {
        self.source = source
        self.selector = selector
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == SourceSequence.Element {
        let sink = SwitchSink(selector: selector, observer: observer, cancel: cancel)
        let subscription = sink.run(source)
        return (sink: sink, subscription: subscription)
    }
}
