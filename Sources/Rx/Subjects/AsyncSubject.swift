/// An AsyncSubject emits the last value (and only the last value) emitted by the source Observable,
/// and only after that source Observable completes.
///
/// If the source terminates with an error, the AsyncSubject emits only that error.
public final class AsyncSubject<Element>: Observable<Element>, SubjectType, ObserverType, SynchronizedUnsubscribeType, @unchecked Sendable {
    // `@unchecked`: all mutable state is guarded by `lock`.
    /// The observer type of the subject (the subject itself).
    public typealias SubjectObserverType = AsyncSubject<Element>

    typealias Observers = Bag<AnyObserver<Element>>

    private let lock = RecursiveLock()
    private var observers = Observers()
    private var isStopped = false
    private var stoppedEvent: Event<Element>?
    private var lastElement: Element?

    /// Indicates whether the subject has any observers.
    public var hasObservers: Bool {
        lock.performLocked { observers.count > 0 }
    }

    /// Creates a subject.
    public override init() {
        super.init()
    }

    /// Notifies all subscribed observers about next event.
    public func on(_ event: Event<Element>) {
        // Only the terminal event is delivered, once: the state changes under the lock,
        // the observers run outside it.
        lock.lock()
        if isStopped {
            lock.unlock()
            return
        }
        switch event {
        case .next(let element):
            lastElement = element
            lock.unlock()
        case .error:
            stoppedEvent = event
            isStopped = true
            let current = observers.items
            observers.removeAll()
            lock.unlock()
            dispatch(current, event)
        case .completed:
            isStopped = true
            let current = observers.items
            observers.removeAll()
            if let lastElement {
                stoppedEvent = .next(lastElement)
                lock.unlock()
                dispatch(current, .next(lastElement))
                dispatch(current, .completed)
            } else {
                stoppedEvent = .completed
                lock.unlock()
                dispatch(current, .completed)
            }
        }
    }

    /// Subscribes an observer to the subject.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        lock.performLocked {
            if let stoppedEvent {
                switch stoppedEvent {
                case .next:
                    observer.on(stoppedEvent)
                    observer.on(.completed)
                case .completed:
                    observer.on(.completed)
                case .error:
                    observer.on(stoppedEvent)
                }
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
    public func asObserver() -> AsyncSubject<Element> { self }
}
