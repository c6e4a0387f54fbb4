extension ObservableType {
    /// Wraps the source sequence in order to run its observer callbacks on the specified scheduler.
    ///
    /// Events are delivered one at a time, in order, even on a concurrent scheduler.
    public func observe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        if let serialScheduler = scheduler as? SerialDispatchQueueScheduler {
            return ObserveOnSerialDispatchQueue(source: asObservable(), scheduler: serialScheduler)
        }
        return ObserveOn(source: asObservable(), scheduler: scheduler)
    }
}

private enum ObserveOnState: Int32 {
    // pump is not running
    case stopped = 0
    // pump is running
    case running = 1
}

final private class ObserveOnSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let scheduler: ImmediateSchedulerType
    private let lock = RecursiveLock()

    // state
    private var state = ObserveOnState.stopped
    private var queue = Queue<Event<Element>>(capacity: 10)

    private let scheduleDisposable = SerialDisposable()
    let sourceSubscription = SingleAssignmentDisposable()

    init(scheduler: ImmediateSchedulerType, observer: Observer, cancel: Cancelable) {
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        let shouldStart = lock.performLocked { () -> Bool in
            queue.enqueue(event)
            switch state {
            case .stopped:
                state = .running
                return true
            case .running:
                return false
            }
        }
        if shouldStart {
            scheduleDisposable.disposable = scheduler.scheduleRecursive((), action: run)
        }
    }

    private func run(_ state: (), _ recurse: (()) -> Void) {
        let nextEvent: Event<Element>? = lock.performLocked {
            if let event = queue.dequeue() {
                return event
            }
            self.state = .stopped
            return nil
        }
        guard let nextEvent, !isDisposed else { return }
        forwardOn(nextEvent)
        if nextEvent.isStopEvent {
            dispose()
            return
        }
        let shouldContinue = lock.performLocked { () -> Bool in
            if !queue.isEmpty { return true }
            self.state = .stopped
            return false
        }
        if shouldContinue {
            recurse(())
        }
    }

    override func dispose() {
        super.dispose()
        sourceSubscription.dispose()
        scheduleDisposable.dispose()
        lock.performLocked { queue.removeAll() }
    }
}

final private class ObserveOn<Element>: Producer<Element>, @unchecked Sendable {
    private let scheduler: ImmediateSchedulerType
    private let source: Observable<Element>

    init(source: Observable<Element>, scheduler: ImmediateSchedulerType) {
        self.scheduler = scheduler
        self.source = source
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ObserveOnSink(scheduler: scheduler, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        sink.sourceSubscription.setDisposable(subscription)
        return (sink: sink, subscription: sink.sourceSubscription)
    }
}

/// A serial queue keeps order by itself: each event is one work item, no pump needed.
final private class ObserveOnSerialDispatchQueueSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private let scheduler: SerialDispatchQueueScheduler
    let subscription = SingleAssignmentDisposable()

    init(scheduler: SerialDispatchQueueScheduler, observer: Observer, cancel: Cancelable) {
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        _ = scheduler.schedule((self, event)) { pair in
            let (sink, event) = pair
            sink.forwardOn(event)
            if event.isStopEvent {
                sink.dispose()
            }
            return Disposables.create()
        }
    }

    override func dispose() {
        super.dispose()
        subscription.dispose()
    }
}

final private class ObserveOnSerialDispatchQueue<Element>: Producer<Element>, @unchecked Sendable {
    private let scheduler: SerialDispatchQueueScheduler
    private let source: Observable<Element>

    init(source: Observable<Element>, scheduler: SerialDispatchQueueScheduler) {
        self.scheduler = scheduler
        self.source = source
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ObserveOnSerialDispatchQueueSink(scheduler: scheduler, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        sink.subscription.setDisposable(subscription)
        return (sink: sink, subscription: sink.subscription)
    }
}
