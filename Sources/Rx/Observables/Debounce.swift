extension ObservableType {
    /// Ignores elements from an observable sequence which are followed by another element within a specified relative time duration, using the specified scheduler to run throttling timers.
    ///
    /// On completion the pending element, if any, is sent before `completed`; on error it is dropped.
    public func debounce(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Debounce(source: asObservable(), dueTime: dueTime, scheduler: scheduler)
    }
}

final private class DebounceSink<Observer: ObserverType>: Sink<Observer>, ObserverType, SynchronizedOnType, @unchecked Sendable {
    typealias Element = Observer.Element
    typealias ParentType = Debounce<Element>

    private let parent: ParentType
    let lock = RecursiveLock()

    // state
    private var id = 0 as UInt64
    private var value: Element?

    private let cancellable = SerialDisposable()

    init(parent: ParentType, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        let subscription = parent.source.subscribe(self)
        return Disposables.create(subscription, cancellable)
    }

    func on(_ event: Event<Element>) {
        synchronizedOn(event)
    }

    func synchronized_on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            id = id &+ 1
            let currentId = id
            value = element
            let d = SingleAssignmentDisposable()
            cancellable.disposable = d
            d.setDisposable(parent.scheduler.scheduleRelative(currentId, dueTime: parent.dueTime, action: propagate))
        case .error:
            value = nil
            forwardOn(event)
            dispose()
        case .completed:
            if let value {
                self.value = nil
                forwardOn(.next(value))
            }
            forwardOn(.completed)
            dispose()
        }
    }

    private func propagate(_ currentId: UInt64) -> Disposable {
        lock.performLocked {
            if let value, id == currentId {
                self.value = nil
                forwardOn(.next(value))
            }
        }
        return Disposables.create()
    }
}

final private class Debounce<Element>: Producer<Element>, @unchecked Sendable {
    fileprivate let source: Observable<Element>
    fileprivate let dueTime: RxTimeInterval
    fileprivate let scheduler: SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, scheduler: SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = DebounceSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
