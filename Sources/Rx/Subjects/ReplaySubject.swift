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
    private var delivery = DeliveryQueue<Element>()
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
        if disposed || stopped {
            lock.unlock()
            return
        }
        delivery.own()
        enqueue(element)
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
            if disposed || stopped {
                if draining { delivery.finish() }
                lock.unlock()
                return
            }
            let current = observers.items
            switch event {
            case .next(let element):
                enqueue(element)
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

    /// Under `lock`: adds `element` to the replay buffer, trimmed to `bufferSize`.
    private func enqueue(_ element: Element) {
        queue.enqueue(element)
        if let bufferSize {
            while queue.count > bufferSize { _ = queue.dequeue() }
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
