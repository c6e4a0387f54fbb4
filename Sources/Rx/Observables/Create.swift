import Synchronization

extension ObservableType {
    /// Creates an observable sequence from a specified subscribe method implementation.
    ///
    /// - parameter subscribe: Implementation of the resulting observable sequence's `subscribe` method.
    /// - returns: The observable sequence with the specified implementation for the `subscribe` method.
    public static func create(_ subscribe: @escaping (AnyObserver<Element>) -> Disposable) -> Observable<Element> {
        AnonymousObservable(subscribe)
    }
}

final private class AnonymousObservableSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element
    typealias Parent = AnonymousObservable<Element>

    private let isStopped = Atomic<Bool>(false)
    #if DEBUG
    private let synchronizationTracker = SynchronizationTracker()
    #endif

    func onNext(_ element: Element) {
        #if DEBUG
        synchronizationTracker.register()
        defer { synchronizationTracker.unregister() }
        #endif
        if isStopped.load(ordering: .relaxed) { return }
        forwardNext(element)
    }

    func on(_ event: Event<Element>) {
        #if DEBUG
        synchronizationTracker.register()
        defer { synchronizationTracker.unregister() }
        #endif
        switch event {
        case .next:
            if isStopped.load(ordering: .relaxed) { return }
            forwardOn(event)
        case .error, .completed:
            if !isStopped.exchange(true, ordering: .acquiringAndReleasing) {
                forwardOn(event)
                dispose()
            }
        }
    }

    func run(_ parent: Parent) -> Disposable {
        parent.subscribeHandler(AnyObserver(self))
    }
}

final private class AnonymousObservable<Element>: Producer<Element>, @unchecked Sendable {
    typealias SubscribeHandler = (AnyObserver<Element>) -> Disposable

    let subscribeHandler: SubscribeHandler

    init(_ subscribeHandler: @escaping SubscribeHandler) {
        self.subscribeHandler = subscribeHandler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = AnonymousObservableSink(observer: observer, cancel: cancel)
        let subscription = sink.run(self)
        return (sink: sink, subscription: subscription)
    }
}
