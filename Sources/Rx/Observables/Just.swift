extension ObservableType {
    /// Returns an observable sequence that contains a single element.
    public static func just(_ element: Element) -> Observable<Element> {
        Just(element: element)
    }

    /// Returns an observable sequence that contains a single element, sent on `scheduler`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Observable<Element> {
        JustScheduled(element: element, scheduler: scheduler)
    }
}

final private class JustScheduledSink<Observer: ObserverType>: Sink<Observer>, @unchecked Sendable {
    typealias Parent = JustScheduled<Observer.Element>

    func run(_ parent: Parent) -> Disposable {
        parent.scheduler.schedule(parent.element) { element in
            self.forwardOn(.next(element))
            return parent.scheduler.schedule(()) { _ in
                self.forwardOn(.completed)
                self.dispose()
                return Disposables.create()
            }
        }
    }
}

final private class JustScheduled<Element>: Producer<Element>, @unchecked Sendable {
    let scheduler: ImmediateSchedulerType
    let element: Element

    init(element: Element, scheduler: ImmediateSchedulerType) {
        self.scheduler = scheduler
        self.element = element
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = JustScheduledSink(observer: observer, cancel: cancel)
        let subscription = sink.run(self)
        return (sink: sink, subscription: subscription)
    }
}

/// `just` without a scheduler: delivers synchronously inside `subscribe`, no sink needed.
final private class Just<Element>: Producer<Element>, @unchecked Sendable {
    private let element: Element

    init(element: Element) {
        self.element = element
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        observer.on(.next(element))
        observer.on(.completed)
        return Disposables.create()
    }
}
