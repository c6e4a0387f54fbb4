extension ObservableType {
    /// Resubscribes after an error each time the trigger sequence `notificationHandler`
    /// builds from the errors emits an element; completes when the trigger completes,
    /// fails when it fails. Errors that are not an `Error` fail at once.
    public func retry<TriggerObservable: ObservableType, Error: Swift.Error>(
        when notificationHandler: @escaping (Observable<Error>) -> TriggerObservable
    ) -> Observable<Element> {
        RetryWhen(source: asObservable(), notificationHandler: notificationHandler)
    }

    /// Resubscribes after an error each time the trigger sequence `notificationHandler`
    /// builds from the errors emits an element; completes when the trigger completes,
    /// fails when it fails.
    public func retry<TriggerObservable: ObservableType>(
        when notificationHandler: @escaping (Observable<Swift.Error>) -> TriggerObservable
    ) -> Observable<Element> {
        RetryWhen(source: asObservable(), notificationHandler: notificationHandler)
    }
}

/// Observes the trigger after an error: an element resubscribes the source.
final private class RetryTriggerObserver<Observer: ObserverType, TriggerElement, Error: Swift.Error>: ObserverType {
    typealias Element = TriggerElement

    private let parent: RetryWhenSink<Observer, TriggerElement, Error>

    init(parent: RetryWhenSink<Observer, TriggerElement, Error>) {
        self.parent = parent
    }

    func on(_ event: Event<TriggerElement>) {
        switch event {
        case .next:
            parent.subscribeToSource()
        case .error(let error):
            parent.forwardOn(.error(error))
            parent.dispose()
        case .completed:
            parent.forwardOn(.completed)
            parent.dispose()
        }
    }
}

final private class RetryWhenSink<Observer: ObserverType, TriggerElement, Error: Swift.Error>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let source: Observable<Element>
    private let errorSubject = PublishSubject<Error>()
    private let notifier = PublishSubject<TriggerElement>()
    private let handler: Observable<TriggerElement>
    private let sourceSubscription = SerialDisposable()
    private let triggerSubscription = SerialDisposable()

    init<Trigger: ObservableType>(source: Observable<Element>, notificationHandler: (Observable<Error>) -> Trigger, observer: Observer, cancel: Cancelable)
    where Trigger.Element == TriggerElement {
        self.source = source
        handler = notificationHandler(errorSubject.asObservable()).asObservable()
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        let handlerSubscription = handler.subscribe(notifier)
        subscribeToSource()
        return Disposables.create(handlerSubscription, sourceSubscription, triggerSubscription)
    }

    /// Through the trampoline, so a trigger that fires synchronously does not recurse.
    func subscribeToSource() {
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            if self.isDisposed { return Disposables.create() }
            // The trigger observer of the previous error is done with (as in RxSwift).
            self.triggerSubscription.disposable = Disposables.create()
            let subscription = SingleAssignmentDisposable()
            self.sourceSubscription.disposable = subscription
            subscription.setDisposable(self.source.subscribe(self))
            return Disposables.create()
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            forwardOn(event)
        case .error(let error):
            guard let failure = error as? Error else {
                forwardOn(event)
                dispose()
                return
            }
            sourceSubscription.disposable = Disposables.create()
            let trigger = SingleAssignmentDisposable()
            triggerSubscription.disposable = trigger
            trigger.setDisposable(notifier.subscribe(RetryTriggerObserver<Observer, TriggerElement, Error>(parent: self)))
            errorSubject.on(.next(failure))
        case .completed:
            forwardOn(event)
            dispose()
        }
    }
}

final private class RetryWhen<Element, TriggerObservable: ObservableType, Error: Swift.Error>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let notificationHandler: (Observable<Error>) -> TriggerObservable

    init(source: Observable<Element>, notificationHandler: @escaping (Observable<Error>) -> TriggerObservable) {
        self.source = source
        self.notificationHandler = notificationHandler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = RetryWhenSink<Observer, TriggerObservable.Element, Error>(source: source, notificationHandler: notificationHandler, observer: observer, cancel: cancel)
        return (sink: sink, subscription: sink.run())
    }
}
