/// Represents a value that changes over time.
///
/// Observers can subscribe to the subject to receive the last (or initial) value and all subsequent notifications.
/// Delivery is serialized, outside the subject's lock (see `PublishSubject`).
public final class BehaviorSubject<Element>: Observable<Element>, SubjectType, ObserverType, SynchronizedUnsubscribeType, Cancelable, @unchecked Sendable {
    // `@unchecked`: all mutable state is guarded by `state.lock`.
    /// The observer type of the subject (the subject itself).
    public typealias SubjectObserverType = BehaviorSubject<Element>

    private let state = SubjectDelivery<Element>()
    /// The latest element. Under `state.lock`.
    private var element: Element

    /// Indicates whether the subject has been disposed.
    public var isDisposed: Bool {
        state.lock.performLocked { state.disposed }
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
        try state.lock.performLocked {
            if state.disposed {
                throw RxError.disposed(object: self)
            }
            if let error = state.stoppedEvent?.error {
                throw error
            }
            return element
        }
    }

    /// Indicates whether the subject has any observers.
    public var hasObservers: Bool {
        state.lock.performLocked { state.observers.count > 0 }
    }

    /// Notifies all subscribed observers about next event.
    public func on(_ event: Event<Element>) {
        state.on(event, record: { self.element = $0 })
    }

    /// Notifies all subscribed observers about the next element.
    public func onNext(_ element: Element) {
        state.onNext(element, record: { self.element = $0 })
    }

    /// Subscribes an observer to the subject: it gets the current value at once.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        state.lock.performLocked {
            if state.disposed {
                observer.on(.error(RxError.disposed(object: self)))
                return Disposables.create()
            }
            if let stoppedEvent = state.stoppedEvent {
                observer.on(stoppedEvent)
                return Disposables.create()
            }
            let key = state.observers.insert(AnyObserver(observer))
            observer.on(.next(element))
            return SubscriptionDisposable(owner: self, key: key)
        }
    }

    func synchronizedUnsubscribe(_ disposeKey: BagKey) {
        state.lock.performLocked {
            if state.disposed { return }
            _ = state.observers.removeKey(disposeKey)
        }
    }

    /// Returns observer interface for subject.
    public func asObserver() -> BehaviorSubject<Element> { self }

    /// Unsubscribe all observers and release resources.
    public func dispose() {
        state.lock.performLocked { state.disposeLocked() }
    }
}
