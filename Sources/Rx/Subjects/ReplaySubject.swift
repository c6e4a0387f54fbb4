/// Represents an object that is both an observable sequence as well as an observer.
///
/// Each notification is broadcasted to all subscribed and future observers, subject to buffer trimming policies.
/// Replay happens synchronously inside `subscribe`. Delivery is serialized (see `PublishSubject`).
public final class ReplaySubject<Element>: Observable<Element>, SubjectType, ObserverType, SynchronizedUnsubscribeType, Cancelable, @unchecked Sendable {
    // `@unchecked`: all mutable state is guarded by `lock`.
    /// The observer type of the subject (the subject itself).
    public typealias SubjectObserverType = ReplaySubject<Element>

    typealias Observers = Bag<AnyObserver<Element>>

    private let lock = RecursiveLock()
    private var disposed = false
    private var stopped = false
    private var stoppedEvent: Event<Element>?
    private var observers = Observers()
    private var queue: Queue<Element>
    private let bufferSize: Int?

    /// Indicates whether the subject has any observers.
    public var hasObservers: Bool {
        lock.performLocked { observers.count > 0 }
    }

    /// Indicates whether the subject has been disposed.
    public var isDisposed: Bool {
        lock.performLocked { disposed }
    }

    private init(bufferSize: Int?) {
        self.bufferSize = bufferSize
        queue = Queue(capacity: Swift.min(bufferSize ?? 0, 16) + 1)
        super.init()
    }

    /// Creates new instance of `ReplaySubject` that replays at most `bufferSize` last elements of sequence.
    public static func create(bufferSize: Int) -> ReplaySubject<Element> {
        precondition(bufferSize >= 0, "bufferSize can't be negative")
        return ReplaySubject(bufferSize: bufferSize)
    }

    /// Creates a new instance of `ReplaySubject` that buffers all the elements of a sequence.
    /// To avoid filling up memory, developer needs to make sure that the use case will only ever store a 'reasonable'
    /// number of elements.
    public static func createUnbounded() -> ReplaySubject<Element> {
        ReplaySubject(bufferSize: nil)
    }

    /// Notifies all subscribed observers about next event.
    public func on(_ event: Event<Element>) {
        lock.lock()
        defer { lock.unlock() }
        if disposed || stopped { return }
        switch event {
        case .next(let element):
            queue.enqueue(element)
            if let bufferSize {
                while queue.count > bufferSize { _ = queue.dequeue() }
            }
            dispatchNext(observers.items, element)
        case .error, .completed:
            stoppedEvent = event
            stopped = true
            let current = observers
            observers.removeAll()
            dispatch(current.items, event)
        }
    }

    /// Subscribes an observer: it gets the buffered elements (and terminal event, if any) at once.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        lock.performLocked {
            if disposed {
                observer.on(.error(RxError.disposed(object: self)))
                return Disposables.create()
            }
            for element in queue.elements {
                observer.on(.next(element))
            }
            if let stoppedEvent {
                observer.on(stoppedEvent)
                return Disposables.create()
            }
            let key = observers.insert(AnyObserver(observer))
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
    public func asObserver() -> ReplaySubject<Element> { self }

    /// Unsubscribe all observers and release resources.
    public func dispose() {
        lock.performLocked {
            disposed = true
            stoppedEvent = nil
            observers.removeAll()
            queue.removeAll()
        }
    }
}
