/// Represents an object that is both an observable sequence as well as an observer.
///
/// Each notification is broadcasted to all subscribed observers. Observers that
/// subscribe after a terminal event get only that terminal event.
///
/// Unlike RxSwift, calling `on` from several threads at once is allowed: the
/// subject delivers one event at a time, outside its lock (`SubjectDelivery`), so
/// events to one observer never overlap.
public final class PublishSubject<Element>: Observable<Element>, SubjectType, Cancelable, ObserverType, SynchronizedUnsubscribeType, @unchecked Sendable {
    // `@unchecked`: all mutable state is in `state`, guarded by its lock.
    /// The observer type of the subject (the subject itself).
    public typealias SubjectObserverType = PublishSubject<Element>

    private let state = SubjectDelivery<Element>()

    /// Indicates whether the subject has any observers.
    public var hasObservers: Bool {
        state.lock.performLocked { state.observers.count > 0 }
    }

    /// Indicates whether the subject has been disposed.
    public var isDisposed: Bool {
        state.lock.performLocked { state.disposed }
    }

    /// Creates a subject.
    public override init() {
        super.init()
    }

    /// Notifies all subscribed observers about the next event.
    public func on(_ event: Event<Element>) {
        state.on(event, record: { _ in })
    }

    /// Notifies all subscribed observers about the next element.
    public func onNext(_ element: Element) {
        state.onNext(element, record: { _ in })
    }

    /// Subscribes an observer to the subject.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        state.lock.performLocked {
            if let stoppedEvent = state.stoppedEvent {
                observer.on(stoppedEvent)
                return Disposables.create()
            }
            if state.disposed {
                observer.on(.error(RxError.disposed(object: self)))
                return Disposables.create()
            }
            let key = state.observers.insert(AnyObserver(observer))
            return SubscriptionDisposable(owner: self, key: key)
        }
    }

    func synchronizedUnsubscribe(_ disposeKey: BagKey) {
        state.lock.performLocked {
            _ = state.observers.removeKey(disposeKey)
        }
    }

    /// Returns observer interface for subject.
    public func asObserver() -> PublishSubject<Element> { self }

    /// Unsubscribe all observers and release resources.
    public func dispose() {
        state.lock.performLocked { state.disposeLocked() }
    }
}
