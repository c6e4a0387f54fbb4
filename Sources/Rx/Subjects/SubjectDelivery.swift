/// The observers, terminal state and delivery loop that `PublishSubject`,
/// `BehaviorSubject` and `ReplaySubject` share, all guarded by `lock`.
///
/// Delivery is serialized by a `DeliveryQueue` and runs outside `lock`, as RxSwift delivers
/// outside its locks (see `DeliveryQueue`). What differs between the subjects is what they
/// remember of an element (the current value, the replay buffer): the `record` closure
/// each of them passes in, called under `lock` just before the element is delivered.
final class SubjectDelivery<Element>: @unchecked Sendable {
    // `@unchecked`: all mutable state is guarded by `lock`.
    typealias Observers = Bag<AnyObserver<Element>>

    let lock = RecursiveLock()
    private var queue = DeliveryQueue<Element>()
    /// The subscribed observers. Under `lock`.
    var observers = Observers()
    /// The terminal event, for later subscribers; `nil` again after `dispose`. Under `lock`.
    private(set) var stoppedEvent: Event<Element>?
    /// Whether the subject has been disposed. Under `lock`.
    private(set) var disposed = false
    private var stopped = false

    /// Sends `event` to the observers, serialized with other threads' events.
    func on(_ event: Event<Element>, record: (Element) -> Void) {
        lock.lock()
        let entry = queue.enter(event)
        if entry == .queued {
            lock.unlock()
            return
        }
        deliver(event, draining: entry == .owner, record: record)
    }

    /// `on(.next(element))` without building an `Event` when no one else is delivering.
    func onNext(_ element: Element, record: (Element) -> Void) {
        lock.lock()
        guard queue.isIdle else {
            lock.unlock()
            on(.next(element), record: record)
            return
        }
        if disposed || stopped {
            lock.unlock()
            return
        }
        queue.own()
        record(element)
        let current = observers.items
        lock.unlock()
        dispatchNext(current, element)
        lock.lock()
        guard let next = queue.next() else {
            lock.unlock()
            return
        }
        deliver(next, draining: true, record: record)
    }

    /// Delivers `first` (and, when `draining`, the events other threads queued meanwhile).
    /// Called with `lock` held; returns with it released. Observers run outside the lock.
    private func deliver(_ first: Event<Element>, draining: Bool, record: (Element) -> Void) {
        var event = first
        while true {
            if disposed || stopped {
                if draining { queue.finish() }
                lock.unlock()
                return
            }
            let current = observers.items
            switch event {
            case .next(let element):
                record(element)
                lock.unlock()
                dispatchNext(current, element)
            case .error, .completed:
                stoppedEvent = event
                stopped = true
                observers.removeAll()
                lock.unlock()
                dispatch(current, event)
            }
            lock.lock()
            guard draining, let next = queue.next() else {
                lock.unlock()
                return
            }
            event = next
        }
    }

    /// Under `lock`: marks the subject disposed and drops its observers and terminal event.
    func disposeLocked() {
        disposed = true
        observers.removeAll()
        stoppedEvent = nil
    }
}
