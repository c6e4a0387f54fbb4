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
        defer { lock.unlock() }
        if stoppedEvent != nil || disposed { return }
        switch event {
        case .next(let element):
            self.element = element
            dispatchNext(observers.items, element)
        case .error, .completed:
            stoppedEvent = event
            let current = observers
            observers.removeAll()
            dispatch(current.items, event)
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
