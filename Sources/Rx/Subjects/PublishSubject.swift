/// Represents an object that is both an observable sequence as well as an observer.
///
/// Each notification is broadcasted to all subscribed observers. Observers that
/// subscribe after a terminal event get only that terminal event.
///
/// Unlike RxSwift, calling `on` from several threads at once is allowed: the
/// subject delivers one event at a time (under its reentrant lock), so events to
/// one observer never overlap.
public final class PublishSubject<Element>: Observable<Element>, SubjectType, Cancelable, ObserverType, SynchronizedUnsubscribeType, @unchecked Sendable {
    // `@unchecked`: all mutable state is guarded by `lock`.
    /// The observer type of the subject (the subject itself).
    public typealias SubjectObserverType = PublishSubject<Element>

    typealias Observers = Bag<AnyObserver<Element>>

    private let lock = RecursiveLock()
    private var delivery = DeliveryQueue<Element>()
    private var disposed = false
    private var observers = Observers()
    private var stopped = false
    private var stoppedEvent = nil as Event<Element>?

    /// Indicates whether the subject has any observers.
    public var hasObservers: Bool {
        lock.performLocked { observers.count > 0 }
    }

    /// Indicates whether the subject has been disposed.
    public var isDisposed: Bool {
        lock.performLocked { disposed }
    }

    /// Creates a subject.
    public override init() {
        super.init()
    }

    /// Notifies all subscribed observers about the next event.
    public func on(_ event: Event<Element>) {
        lock.lock()
        let entry = delivery.enter(event)
        if entry == .queued {
            lock.unlock()
            return
        }
        deliver(event, draining: entry == .owner)
    }

    /// Delivers `first` (and, when `draining`, the events other threads queued meanwhile).
    /// Called with `lock` held; returns with it released. Observers run outside the lock.
    private func deliver(_ first: Event<Element>, draining: Bool) {
        var event = first
        while true {
            if disposed || stopped {
                if draining { delivery.finish() }
                lock.unlock()
                return
            }
            let current = observers.items
            switch event {
            case .next(let element):
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
            guard draining, let next = delivery.next() else {
                lock.unlock()
                return
            }
            event = next
        }
    }

    /// Notifies all subscribed observers about the next element.
    public func onNext(_ element: Element) {
        lock.lock()
        guard delivery.isIdle else {
            lock.unlock()
            on(.next(element))
            return
        }
        if disposed || stopped {
            lock.unlock()
            return
        }
        delivery.own()
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

    /// Subscribes an observer to the subject.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        lock.performLocked {
            if let stoppedEvent {
                observer.on(stoppedEvent)
                return Disposables.create()
            }
            if disposed {
                observer.on(.error(RxError.disposed(object: self)))
                return Disposables.create()
            }
            let key = observers.insert(AnyObserver(observer))
            return SubscriptionDisposable(owner: self, key: key)
        }
    }

    func synchronizedUnsubscribe(_ disposeKey: BagKey) {
        lock.performLocked {
            _ = observers.removeKey(disposeKey)
        }
    }

    /// Returns observer interface for subject.
    public func asObserver() -> PublishSubject<Element> { self }

    /// Unsubscribe all observers and release resources.
    public func dispose() {
        lock.performLocked {
            disposed = true
            observers.removeAll()
            stoppedEvent = nil
        }
    }
}
