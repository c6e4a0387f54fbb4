extension ObservableType {
    /// Wraps the source sequence in order to run its subscription and unsubscription logic on the specified scheduler.
    ///
    /// This only invokes observer callbacks on a `scheduler` in case the source
    /// emits from within `subscribe`; use `observe(on:)` for delivery.
    public func subscribe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        SubscribeOn(source: asObservable(), scheduler: scheduler)
    }
}

final private class SubscribeOnSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    func on(_ event: Event<Element>) {
        forwardOn(event)
        if event.isStopEvent {
            dispose()
        }
    }

    func run(_ parent: SubscribeOn<Element>) -> Disposable {
        let disposeEverything = SerialDisposable()
        let cancelSchedule = SingleAssignmentDisposable()
        disposeEverything.disposable = cancelSchedule
        let disposeSchedule = parent.scheduler.schedule(()) { _ -> Disposable in
            let subscription = parent.source.subscribe(self)
            disposeEverything.disposable = ScheduledDisposable(scheduler: parent.scheduler, disposable: subscription)
            return Disposables.create()
        }
        cancelSchedule.setDisposable(disposeSchedule)
        return disposeEverything
    }
}

final private class SubscribeOn<Element>: Producer<Element>, @unchecked Sendable {
    fileprivate let source: Observable<Element>
    fileprivate let scheduler: ImmediateSchedulerType

    init(source: Observable<Element>, scheduler: ImmediateSchedulerType) {
        self.source = source
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = SubscribeOnSink(observer: observer, cancel: cancel)
        let subscription = sink.run(self)
        return (sink: sink, subscription: subscription)
    }
}
