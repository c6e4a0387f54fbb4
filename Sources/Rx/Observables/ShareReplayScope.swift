/// Subject lifetime scope of `share(replay:scope:)`.
public enum SubjectLifetimeScope: Sendable {
    /// The source is subscribed when the first subscriber arrives and disposed when
    /// the last one leaves. The replay buffer belongs to that connection and is
    /// dropped with it. After the source errors or completes, the next subscriber
    /// starts a fresh connection.
    case whileConnected

    /// The replay buffer outlives connections. After the source terminates, new
    /// subscribers get the buffer and the terminal event, and the source is not
    /// subscribed again.
    case forever
}

extension ObservableType {
    /// Returns an observable sequence that shares a single subscription to the underlying
    /// sequence, and immediately upon subscription replays the last `replay` elements.
    ///
    /// Replay happens synchronously inside `subscribe`, before later elements.
    ///
    /// - parameter replay: Maximum element count of the replay buffer.
    /// - parameter scope: Lifetime scope of sharing subject (see `SubjectLifetimeScope`).
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Observable<Element> {
        precondition(replay >= 0, "replay can't be negative")
        switch scope {
        case .whileConnected:
            return ShareWhileConnected(source: asObservable(), replay: replay)
        case .forever:
            return ShareForever(source: asObservable(), replay: replay)
        }
    }
}

// MARK: - whileConnected

/// One connection to the source with its own replay buffer and observers.
private final class ShareWhileConnectedConnection<Element>: ObserverType, SynchronizedUnsubscribeType, @unchecked Sendable {
    // `@unchecked`: state is guarded by the parent's `lock`, which this connection shares.
    typealias Observers = Bag<AnyObserver<Element>>
    typealias Parent = ShareWhileConnected<Element>

    private let parent: Parent
    private let subscription = SingleAssignmentDisposable()
    private let lock: RecursiveLock
    private var disposed = false
    fileprivate var observers = Observers()
    private var buffer: Queue<Element>

    init(parent: Parent, lock: RecursiveLock) {
        self.parent = parent
        self.lock = lock
        buffer = Queue(capacity: Swift.min(parent.replay, 16))
        Resources.incrementTotal()
    }

    private var delivery = DeliveryQueue<Element>()

    func on(_ event: Event<Element>) {
        lock.lock()
        let entry = delivery.enter(event)
        if entry == .queued {
            lock.unlock()
            return
        }
        deliver(event, draining: entry == .owner)
    }

    func onNext(_ element: Element) {
        lock.lock()
        guard delivery.isIdle else {
            lock.unlock()
            on(.next(element))
            return
        }
        if disposed {
            lock.unlock()
            return
        }
        delivery.own()
        append(element)
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

    /// Under the lock: keeps `element` for late subscribers.
    private func append(_ element: Element) {
        if parent.replay > 0 {
            if buffer.count == parent.replay { _ = buffer.dequeue() }
            buffer.enqueue(element)
        }
    }

    /// Delivers `first` (and, when `draining`, events other threads queued meanwhile), as
    /// the subjects do: called with the lock held, returns with it released, and observers
    /// run outside it.
    private func deliver(_ first: Event<Element>, draining: Bool) {
        var event = first
        while true {
            if disposed {
                if draining { delivery.finish() }
                lock.unlock()
                return
            }
            let current = observers.items
            switch event {
            case .next(let element):
                append(element)
                lock.unlock()
                dispatchNext(current, element)
            case .error, .completed:
                synchronized_dispose()
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

    func connect() {
        subscription.setDisposable(parent.source.subscribe(self))
    }

    /// Under the lock: replays the buffer, then registers the observer.
    func synchronized_subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        for element in buffer.elements {
            observer.on(.next(element))
        }
        let disposeKey = observers.insert(AnyObserver(observer))
        return SubscriptionDisposable(owner: self, key: disposeKey)
    }

    private func synchronized_dispose() {
        disposed = true
        if parent.connection === self {
            parent.connection = nil
        }
        observers = Observers()
        buffer.removeAll()
    }

    func synchronizedUnsubscribe(_ disposeKey: BagKey) {
        let shouldDisconnect: Bool = lock.performLocked {
            if observers.removeKey(disposeKey) == nil { return false }
            if observers.count == 0 {
                synchronized_dispose()
                return true
            }
            return false
        }
        if shouldDisconnect {
            subscription.dispose()
        }
    }

    deinit { Resources.decrementTotal() }
}

final private class ShareWhileConnected<Element>: Observable<Element>, @unchecked Sendable {
    // `@unchecked`: `connection` is guarded by `lock`.
    fileprivate typealias Connection = ShareWhileConnectedConnection<Element>

    fileprivate let source: Observable<Element>
    fileprivate let replay: Int
    private let lock = RecursiveLock()
    fileprivate var connection: Connection?

    init(source: Observable<Element>, replay: Int) {
        self.source = source
        self.replay = replay
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        lock.lock()
        let connection: Connection
        if let existing = self.connection {
            connection = existing
        } else {
            connection = Connection(parent: self, lock: lock)
            self.connection = connection
        }
        let count = connection.observers.count
        let disposable = connection.synchronized_subscribe(observer)
        lock.unlock()

        if count == 0 {
            connection.connect()
        }
        return disposable
    }
}

// MARK: - forever

/// Shares one subject for the whole lifetime of the operator: connections come and go
/// with subscribers, the subject (and its replay buffer) stays; after the source
/// terminates, the subject answers every later subscriber alone.
final private class ShareForever<Element>: Observable<Element>, @unchecked Sendable {
    // `@unchecked`: mutable state is guarded by `lock`.
    private let source: Observable<Element>
    private let subject: Observable<Element>
    private let subjectObserver: AnyObserver<Element>
    private let lock = RecursiveLock()
    private var count = 0
    private var connectionId = 0
    private var connection: SingleAssignmentDisposable?
    private var terminated = false

    init(source: Observable<Element>, replay: Int) {
        self.source = source
        if replay == 0 {
            let subject = PublishSubject<Element>()
            self.subject = subject
            subjectObserver = subject.asObserver().asObserver()
        } else {
            let subject = ReplaySubject<Element>.create(bufferSize: replay)
            self.subject = subject
            subjectObserver = subject.asObserver().asObserver()
        }
    }

    private enum Arrival {
        case terminated
        case joined
        case connect(SingleAssignmentDisposable, id: Int)
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        // Replays the buffer (and the terminal event, if any) synchronously.
        let subscription = subject.subscribe(observer)
        let arrival: Arrival = lock.performLocked {
            if terminated { return .terminated }
            count += 1
            if count > 1 { return .joined }
            connectionId += 1
            let connection = SingleAssignmentDisposable()
            self.connection = connection
            return .connect(connection, id: connectionId)
        }
        switch arrival {
        case .terminated:
            return subscription
        case .joined:
            break
        case let .connect(connection, id):
            connection.setDisposable(source.subscribe(AnyObserver { event in
                self.forward(event, connectionId: id)
            }))
        }
        return Disposables.create {
            subscription.dispose()
            self.release()
        }
    }

    private func release() {
        let connection: SingleAssignmentDisposable? = lock.performLocked {
            if terminated { return nil }
            count -= 1
            if count > 0 { return nil }
            let connection = self.connection
            self.connection = nil
            return connection
        }
        connection?.dispose()
    }

    private func forward(_ event: Event<Element>, connectionId id: Int) {
        // The subject serializes and delivers outside its own lock; this lock only guards
        // the connection state, and is not held while observers run.
        let current: Bool = lock.performLocked {
            if id != connectionId || terminated { return false }
            if event.isStopEvent {
                terminated = true
                connection = nil
            }
            return true
        }
        if current {
            subjectObserver.on(event)
        }
    }
}
