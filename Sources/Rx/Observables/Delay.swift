import Foundation

extension ObservableType {
    /// Returns an observable sequence by the source observable sequence shifted forward in time by a specified delay.
    /// Error events from the source observable sequence are not delayed.
    public func delay(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        Delay(source: asObservable(), dueTime: dueTime, scheduler: scheduler)
    }
}

/// Queues events with their arrival time; one drain at a time forwards each event
/// when its delay has passed, so delivery stays serial and ordered on any scheduler.
final private class DelaySink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element
    typealias Source = Observable<Element>

    private let lock = RecursiveLock()

    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType

    private let sourceSubscription = SingleAssignmentDisposable()
    private let cancelable = SerialDisposable()

    // is scheduled some action
    private var active = false
    // is "run loop" on different scheduler running
    private var running = false
    private var errorEvent: Event<Element>?

    // state
    private var queue = Queue<(eventTime: RxTime, event: Event<Element>)>(capacity: 0)

    init(observer: Observer, dueTime: RxTimeInterval, scheduler: SchedulerType, cancel: Cancelable) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(observer: observer, cancel: cancel)
    }

    // All of these complications in this method are caused by the fact that
    // error should be propagated immediately. Error can be potentially received on different
    // scheduler so this process needs to be synchronized somehow.
    //
    // Another complication is that scheduler is potentially concurrent so internal queue is used.
    private func drainQueue(state: (), scheduler: AnyRecursiveScheduler<()>) {
        let hasFailed: Bool = lock.performLocked {
            let hasFailed = errorEvent != nil
            if !hasFailed {
                running = true
            }
            return hasFailed
        }
        if hasFailed { return }

        var ranAtLeastOnce = false

        while true {
            let (eventToForwardImmediately, nextEventToScheduleOriginalTime, errorEvent) = lock.performLocked { () -> (Event<Element>?, Date?, Event<Element>?) in
                let errorEvent = self.errorEvent
                let eventToForwardImmediately = ranAtLeastOnce ? nil : queue.dequeue()?.event
                let nextEventToScheduleOriginalTime: Date? = ranAtLeastOnce && !queue.isEmpty ? queue.peek()!.eventTime : nil
                if errorEvent == nil {
                    if eventToForwardImmediately != nil {
                    } else if nextEventToScheduleOriginalTime != nil {
                        running = false
                    } else {
                        running = false
                        active = false
                    }
                }
                return (eventToForwardImmediately, nextEventToScheduleOriginalTime, errorEvent)
            }

            if let errorEvent {
                forwardOn(errorEvent)
                dispose()
                return
            } else if let eventToForwardImmediately {
                ranAtLeastOnce = true
                forwardOn(eventToForwardImmediately)
                if case .completed = eventToForwardImmediately {
                    dispose()
                    return
                }
            } else if let nextEventToScheduleOriginalTime {
                scheduler.schedule((), dueTime: dueTime.reduceWithSpanBetween(earlierDate: nextEventToScheduleOriginalTime, laterDate: self.scheduler.now))
                return
            } else {
                return
            }
        }
    }

    func on(_ event: Event<Element>) {
        if event.isStopEvent {
            sourceSubscription.dispose()
        }
        switch event {
        case .error:
            let shouldSendImmediately: Bool = lock.performLocked {
                let shouldSendImmediately = !running
                queue = Queue(capacity: 0)
                errorEvent = event
                return shouldSendImmediately
            }
            if shouldSendImmediately {
                forwardOn(event)
                dispose()
            }
        default:
            let shouldSchedule: Bool = lock.performLocked {
                let shouldSchedule = !active
                active = true
                queue.enqueue((scheduler.now, event))
                return shouldSchedule
            }
            if shouldSchedule {
                cancelable.disposable = scheduler.scheduleRecursive((), dueTime: dueTime, action: drainQueue)
            }
        }
    }

    func run(source: Observable<Element>) -> Disposable {
        sourceSubscription.setDisposable(source.subscribe(self))
        return Disposables.create(sourceSubscription, cancelable)
    }
}

final private class Delay<Element>: Producer<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, scheduler: SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = DelaySink(observer: observer, dueTime: dueTime, scheduler: scheduler, cancel: cancel)
        let subscription = sink.run(source: source)
        return (sink: sink, subscription: subscription)
    }
}
