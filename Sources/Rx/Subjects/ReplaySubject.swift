/// Represents an object that is both an observable sequence as well as an observer.
///
/// Each notification is broadcasted to all subscribed and future observers, subject to buffer trimming policies.
/// Replay happens synchronously inside `subscribe`. Delivery is serialized (see `PublishSubject`).
public final class ReplaySubject<Element>: Observable<Element>, SubjectType, ObserverType, SynchronizedUnsubscribeType, Cancelable, @unchecked Sendable {
    // `@unchecked`: all mutable state is guarded by `state.lock`.
    /// The observer type of the subject (the subject itself).
    public typealias SubjectObserverType = ReplaySubject<Element>

    private let state = SubjectDelivery<Element>()
    /// The replay buffer. Under `state.lock`.
    private var queue: Queue<Element>
    private let bufferSize: Int?

    /// Indicates whether the subject has any observers.
    public var hasObservers: Bool {
        state.lock.performLocked { state.observers.count > 0 }
    }

    /// Indicates whether the subject has been disposed.
    public var isDisposed: Bool {
        state.lock.performLocked { state.disposed }
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
        state.on(event, record: { self.enqueue($0) })
    }

    /// Notifies all subscribed observers about the next element.
    public func onNext(_ element: Element) {
        state.onNext(element, record: { self.enqueue($0) })
    }

    /// Under `state.lock`: adds `element` to the replay buffer, trimmed to `bufferSize`.
    private func enqueue(_ element: Element) {
        queue.enqueue(element)
        if let bufferSize {
            while queue.count > bufferSize { _ = queue.dequeue() }
        }
    }

    /// Subscribes an observer: it gets the buffered elements (and terminal event, if any) at once.
    public override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        state.lock.performLocked {
            if state.disposed {
                observer.on(.error(RxError.disposed(object: self)))
                return Disposables.create()
            }
            for element in queue.elements {
                observer.on(.next(element))
            }
            if let stoppedEvent = state.stoppedEvent {
                observer.on(stoppedEvent)
                return Disposables.create()
            }
            let key = state.observers.insert(AnyObserver(observer))
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
    public func asObserver() -> ReplaySubject<Element> { self }

    /// Unsubscribe all observers and release resources.
    public func dispose() {
        state.lock.performLocked {
            state.disposeLocked()
            queue.removeAll()
        }
    }
}
