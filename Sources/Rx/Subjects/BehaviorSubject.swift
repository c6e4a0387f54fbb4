/// Represents a value that changes over time.
///
/// Observers can subscribe to the subject to receive the last (or initial) value and all subsequent notifications.
/// Delivery is serialized under the subject's reentrant lock (see `PublishSubject`).
public final class BehaviorSubject<Element>: Observable<Element>, SubjectType, ObserverType, SynchronizedUnsubscribeType, Cancelable, @unchecked Sendable {
    // `@unchecked`: all mutable state is guarded by `lock`.
    /// The observer type of the subject (the subject itself).
    public typealias SubjectObserverType = BehaviorSubject<Element>

    typealias Observers = Bag<AnyObserver<Element>>

    private let lock = RecursiveLock()
    private var delivery = DeliveryQueue<Element>()
    private var disposed = false
    private var element: Element
    private var observers = Observers()
    private var stoppedEvent: Event<Element>?

    /// Indicates whether the subject has been disposed.
    public var isDisposed: Bool {
        lock.performLocked { disposed }
    }

    /// Initializes a new instance of the subject that caches its last value and starts with the specified value.
    public init(value: Element) {
        element = value
        super.init()
    }

    /// Gets the current value or throws an error.
    ///
    /// - returns: Latest value.
    /// - throws: The error the subject terminated with, or `RxError.disposed`.
    public func value() throws -> Element {
        try lock.performLocked {
            if disposed {
                throw RxError.disposed(object: self)
            }
            if let error = stoppedEvent?.error {
                throw error
            }
            return element
        }
    }

    /// Indicates whether the subject has any observers.
    public var hasObservers: Bool {
        lock.performLocked { observers.count > 0 }
    }

    /// Notifies all subscribed observers about next event.
    public func on(_ event: Event<Element>) {
        lock.lock()
        let entry = delivery.enter(event)
        if entry == .queued {
            lock.unlock()
            return
        }
        deliver(event, draining: entry == .owner)
    }

    /// Notifies all subscribed observers about the next element.
    public func onNext(_ element: Element) {
        lock.lock()
        guard delivery.isIdle else {
            lock.unlock()
            on(.next(element))
            return
        }
        if stoppedEvent != nil || disposed {
            lock.unlock()
            return
        }
        delivery.own()
        self.element = element
        let current = observers.items
        lock.unlock()
        dispatchNext(current, element)
        lock.lock()
        guard let next = delivery.next() else {
            lock.unlock()
            return
        }
        deliver(next, draining: true)
    }

    /// Delivers `first` (and, when `draining`, the events other threads queued meanwhile).
    /// Called with `lock` held; returns with it released. Observers run outside the lock.
    private func deliver(_ first: Event<Element>, draining: Bool) {
        var event = first
        while true {
            if stoppedEvent != nil || disposed {
                if draining { delivery.finish() }
                lock.unlock()
                return
            }
            let current = observers.items
            switch event {
            case .next(let element):
                self.element = element
                lock.unlock()
                dispatchNext(current, element)
            case .error, .completed:
                stoppedEvent = event
                observers.removeAll()
                lock.unlock()
                dispatch(current, event)
            }
            lock.lock()
            guard draining, let next = delivery.next() else {
                lock.unlock()
                return
            }
            event = next
        }
    }

    /// Subscribes an observer to the subject: it gets the current value at once.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        lock.performLocked {
            if disposed {
                observer.on(.error(RxError.disposed(object: self)))
                return Disposables.create()
            }
            if let stoppedEvent {
                observer.on(stoppedEvent)
                return Disposables.create()
            }
            let key = observers.insert(AnyObserver(observer))
            observer.on(.next(element))
            return SubscriptionDisposable(owner: self, key: key)
        }
    }

    func synchronizedUnsubscribe(_ disposeKey: BagKey) {
        lock.performLocked {
            if disposed { return }
            _ = observers.removeKey(disposeKey)
        }
    }

    /// Returns observer interface for subject.
    public func asObserver() -> BehaviorSubject<Element> { self }

    /// Unsubscribe all observers and release resources.
    public func dispose() {
        lock.performLocked {
            disposed = true
            observers.removeAll()
            stoppedEvent = nil
        }
    }
}
