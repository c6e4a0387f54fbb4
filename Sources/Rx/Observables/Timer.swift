extension ObservableType where Element: RxAbstractInteger {
    /// Returns an observable sequence that produces a value after each period, starting at 0.
    public static func interval(_ period: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Timer(dueTime: period, period: period, scheduler: scheduler)
    }

    /// Returns an observable sequence that produces 0 after `dueTime`, then a value after each
    /// `period` if one is given; without a period it completes after the first value.
    public static func timer(_ dueTime: RxTimeInterval, period: RxTimeInterval? = nil, scheduler: SchedulerType) -> Observable<Element> {
        Timer(dueTime: dueTime, period: period, scheduler: scheduler)
    }
}

final private class TimerSink<Observer: ObserverType>: Sink<Observer>, @unchecked Sendable where Observer.Element: RxAbstractInteger  {
    typealias Parent = Timer<Observer.Element>

    private let lock = RecursiveLock()

    func run(_ parent: Parent, period: RxTimeInterval) -> Disposable {
        parent.scheduler.schedulePeriodic(0 as Observer.Element, startAfter: parent.dueTime, period: period) { state in
            self.lock.performLocked {
                self.forwardOn(.next(state))
                return state &+ 1
            }
        }
    }
}

final private class TimerOneOffSink<Observer: ObserverType>: Sink<Observer>, @unchecked Sendable where Observer.Element: RxAbstractInteger  {
    typealias Parent = Timer<Observer.Element>

    func run(_ parent: Parent) -> Disposable {
        parent.scheduler.scheduleRelative(self, dueTime: parent.dueTime) { sink -> Disposable in
            sink.forwardOn(.next(0))
            sink.forwardOn(.completed)
            sink.dispose()
            return Disposables.create()
        }
    }
}

final private class Timer<Element: RxAbstractInteger>: Producer<Element>, @unchecked Sendable {
    fileprivate let scheduler: SchedulerType
    fileprivate let dueTime: RxTimeInterval
    fileprivate let period: RxTimeInterval?

    init(dueTime: RxTimeInterval, period: RxTimeInterval?, scheduler: SchedulerType) {
        self.scheduler = scheduler
        self.dueTime = dueTime
        self.period = period
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        if let period {
            let sink = TimerSink(observer: observer, cancel: cancel)
            let subscription = sink.run(self, period: period)
            return (sink: sink, subscription: subscription)
        } else {
            let sink = TimerOneOffSink(observer: observer, cancel: cancel)
            let subscription = sink.run(self)
            return (sink: sink, subscription: subscription)
        }
    }
}
