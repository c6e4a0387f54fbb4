extension ObservableType {
    /// Bypasses a specified number of elements in an observable sequence and then returns the remaining elements.
    public func skip(_ count: Int) -> Observable<Element> {
        SkipCount(source: asObservable(), count: count)
    }

    /// Skips elements for `duration` from the subscription, then returns the remaining
    /// elements. Errors and completion pass at any time.
    public func skip(for duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        SkipTime(source: asObservable(), duration: duration, scheduler: scheduler)
    }
}

final private class SkipCountSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private var remaining: Int

    init(count: Int, observer: Observer, cancel: Cancelable) {
        remaining = count
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if remaining <= 0 {
                forwardOn(event)
            } else {
                remaining -= 1
            }
        case .error, .completed:
            forwardOn(event)
            dispose()
        }
    }
}

final private class SkipCount<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let count: Int

    init(source: Observable<Element>, count: Int) {
        self.source = source
        self.count = count
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = SkipCountSink(count: count, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink: sink, subscription: subscription)
    }
}

/// RxSwift's `SkipTimeSink` reads its `open` flag without a lock; ours takes the sink's lock,
/// as `TakeTimeSink` does, since the timer may fire on another thread.
final private class SkipTimeSink<Observer: ObserverType>: Sink<Observer>, ObserverType, SynchronizedOnType, @unchecked Sendable {
    // `@unchecked`: `open` is read and written under `lock`.
    typealias Element = Observer.Element

    let lock = RecursiveLock()
    private var open = false

    func on(_ event: Event<Element>) {
        synchronizedOn(event)
    }

    func synchronized_on(_ event: Event<Element>) {
        switch event {
        case .next:
            if open { forwardOn(event) }
        case .error, .completed:
            forwardOn(event)
            dispose()
        }
    }

    func tick() {
        lock.performLocked { open = true }
    }

    func run(_ parent: SkipTime<Element>) -> Disposable {
        let disposeTimer = parent.scheduler.scheduleRelative((), dueTime: parent.duration) { _ in
            self.tick()
            return Disposables.create()
        }
        let disposeSubscription = parent.source.subscribe(self)
        return Disposables.create(disposeTimer, disposeSubscription)
    }
}

final private class SkipTime<Element>: Producer<Element>, @unchecked Sendable {
    fileprivate let source: Observable<Element>
    fileprivate let duration: RxTimeInterval
    fileprivate let scheduler: SchedulerType

    init(source: Observable<Element>, duration: RxTimeInterval, scheduler: SchedulerType) {
        self.source = source
        self.scheduler = scheduler
        self.duration = duration
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = SkipTimeSink(observer: observer, cancel: cancel)
        let subscription = sink.run(self)
        return (sink: sink, subscription: subscription)
    }
}
