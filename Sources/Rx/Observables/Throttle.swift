import Foundation

extension ObservableType {
    /// Returns an Observable that emits the first and the latest item emitted by the source Observable during sequential time windows of a specified duration.
    ///
    /// The first element goes at once. With `latest: true` the newest element of the
    /// window goes at the end of the window (and completion waits for it); with
    /// `latest: false` the rest of the window is dropped.
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true, scheduler: SchedulerType) -> Observable<Element> {
        Throttle(source: asObservable(), dueTime: dueTime, latest: latest, scheduler: scheduler)
    }
}

final private class ThrottleSink<Observer: ObserverType>: Sink<Observer>, ObserverType, SynchronizedOnType, @unchecked Sendable {
    typealias Element = Observer.Element
    typealias ParentType = Throttle<Element>

    private let parent: ParentType
    let lock = RecursiveLock()

    // state
    private var lastUnsentElement: Element?
    private var lastSentTime: Date?
    private var completed = false

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
            let now = parent.scheduler.now
            let remaining: RxTimeInterval
            if let lastSentTime {
                remaining = parent.dueTime.reduceWithSpanBetween(earlierDate: lastSentTime, laterDate: now)
            } else {
                remaining = .nanoseconds(0)
            }
            if remaining.isNow {
                sendNow(element: element)
                return
            }
            if !parent.latest {
                return
            }
            let isThereAlreadyInFlightRequest = lastUnsentElement != nil
            lastUnsentElement = element
            if isThereAlreadyInFlightRequest {
                return
            }
            let d = SingleAssignmentDisposable()
            cancellable.disposable = d
            d.setDisposable(parent.scheduler.scheduleRelative(0, dueTime: remaining, action: propagate))
        case .error:
            lastUnsentElement = nil
            forwardOn(event)
            dispose()
        case .completed:
            if lastUnsentElement != nil {
                completed = true
            } else {
                forwardOn(.completed)
                dispose()
            }
        }
    }

    private func sendNow(element: Element) {
        lastUnsentElement = nil
        forwardOn(.next(element))
        // in case element processing takes a while, this should give some more room
        lastSentTime = parent.scheduler.now
    }

    private func propagate(_: Int) -> Disposable {
        lock.performLocked {
            if let lastUnsentElement {
                sendNow(element: lastUnsentElement)
            }
            if completed {
                forwardOn(.completed)
                dispose()
            }
        }
        return Disposables.create()
    }
}

final private class Throttle<Element>: Producer<Element>, @unchecked Sendable {
    fileprivate let source: Observable<Element>
    fileprivate let dueTime: RxTimeInterval
    fileprivate let latest: Bool
    fileprivate let scheduler: SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, latest: Bool, scheduler: SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.latest = latest
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ThrottleSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
