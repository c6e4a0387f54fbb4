import Synchronization

/// A sequence that shares one subscription to its source once `connect()` is called.
///
/// Any `ConnectableObservableType` gets `refCount()`.
public protocol ConnectableObservableType: ObservableType {
    /// Connects to the source: subscribed observers receive its events until the returned
    /// disposable is disposed (or the source terminates).
    func connect() -> Disposable
}

/// An observable that can be connected to, and disconnected from, its source.
public class ConnectableObservable<Element>: Observable<Element>, ConnectableObservableType, @unchecked Sendable {
    /// Connects to the source; dispose the result to disconnect.
    public func connect() -> Disposable {
        rxAbstractMethod()
    }
}

extension ObservableType {
    /// Multicasts the source through a subject made by `subjectSelector` for each subscription,
    /// into the sequence `selector` builds from it.
    public func multicast<Subject: SubjectType, Result>(
        _ subjectSelector: @escaping () throws -> Subject,
        selector: @escaping (Observable<Subject.Element>) throws -> Observable<Result>
    ) -> Observable<Result> where Subject.Observer.Element == Element {
        Multicast(source: asObservable(), subjectSelector: subjectSelector, selector: selector)
    }

    /// A connectable sequence sharing one subscription, through a `PublishSubject`.
    ///
    /// Each connection after a terminated one gets a fresh subject.
    public func publish() -> ConnectableObservable<Element> {
        multicast(makeSubject: { PublishSubject() })
    }

    /// A connectable sequence sharing one subscription, replaying the last `bufferSize` elements.
    ///
    /// Each connection after a terminated one gets a fresh subject (and buffer).
    public func replay(_ bufferSize: Int) -> ConnectableObservable<Element> {
        multicast(makeSubject: { ReplaySubject.create(bufferSize: bufferSize) })
    }

    /// A connectable sequence sharing one subscription, replaying every element.
    public func replayAll() -> ConnectableObservable<Element> {
        multicast(makeSubject: { ReplaySubject.createUnbounded() })
    }

    /// A connectable sequence pushing the source into `subject` on connection.
    ///
    /// The one subject serves every connection: after it has terminated, a new
    /// connection does not revive it.
    public func multicast<Subject: SubjectType>(_ subject: Subject) -> ConnectableObservable<Subject.Element> where Subject.Observer.Element == Element {
        ConnectableObservableAdapter(source: asObservable(), makeSubject: { subject })
    }

    /// A connectable sequence pushing the source into a subject made by `makeSubject`.
    ///
    /// The subject is dropped when its connection is disposed or the source terminates,
    /// so the next connection (or subscriber) gets a fresh one.
    public func multicast<Subject: SubjectType>(makeSubject: @escaping () -> Subject) -> ConnectableObservable<Subject.Element> where Subject.Observer.Element == Element {
        ConnectableObservableAdapter(source: asObservable(), makeSubject: makeSubject)
    }
}

extension ConnectableObservableType {
    /// Connects while at least one observer is subscribed: the first subscriber connects,
    /// the last one to leave disconnects.
    public func refCount() -> Observable<Element> {
        RefCount(source: self)
    }
}

// MARK: - Connection

/// One connection of a `ConnectableObservableAdapter` to its source.
final private class Connection<Subject: SubjectType>: ObserverType, Disposable, @unchecked Sendable {
    // `@unchecked`: `parent` and `subscription` are guarded by the parent's `lock`;
    // `disposed` is atomic; events come serially from the source.
    typealias Element = Subject.Observer.Element

    private let lock: RecursiveLock
    private var parent: ConnectableObservableAdapter<Subject>?
    private var subscription: Disposable?
    private let subjectObserver: Subject.Observer
    private let disposed = Atomic<Bool>(false)

    init(parent: ConnectableObservableAdapter<Subject>, subjectObserver: Subject.Observer, lock: RecursiveLock, subscription: Disposable) {
        self.parent = parent
        self.subscription = subscription
        self.lock = lock
        self.subjectObserver = subjectObserver
    }

    func on(_ event: Event<Element>) {
        if disposed.load(ordering: .acquiring) { return }
        if event.isStopEvent {
            dispose()
        }
        subjectObserver.on(event)
    }

    func dispose() {
        lock.lock()
        defer { lock.unlock() }
        disposed.store(true, ordering: .releasing)
        guard let parent else { return }
        if parent.connection === self {
            parent.connection = nil
            parent.subject = nil
        }
        self.parent = nil
        subscription?.dispose()
        subscription = nil
    }
}

final private class ConnectableObservableAdapter<Subject: SubjectType>: ConnectableObservable<Subject.Element>, @unchecked Sendable {
    // `@unchecked`: `subject` and `connection` are guarded by `lock`.
    private let source: Observable<Subject.Observer.Element>
    private let makeSubject: () -> Subject

    fileprivate let lock = RecursiveLock()
    fileprivate var subject: Subject?
    fileprivate var connection: Connection<Subject>?

    init(source: Observable<Subject.Observer.Element>, makeSubject: @escaping () -> Subject) {
        self.source = source
        self.makeSubject = makeSubject
    }

    override func connect() -> Disposable {
        lock.performLocked {
            if let connection { return connection }
            let subscription = SingleAssignmentDisposable()
            let connection = Connection(parent: self, subjectObserver: lazySubject.asObserver(), lock: lock, subscription: subscription)
            self.connection = connection
            subscription.setDisposable(source.subscribe(connection))
            return connection
        }
    }

    private var lazySubject: Subject {
        lock.performLocked {
            if let subject { return subject }
            let subject = makeSubject()
            self.subject = subject
            return subject
        }
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Subject.Element {
        lazySubject.subscribe(observer)
    }
}

// MARK: - refCount

final private class RefCountSink<ConnectableSource: ConnectableObservableType, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable
where ConnectableSource.Element == Observer.Element {
    typealias Element = Observer.Element
    typealias Parent = RefCount<ConnectableSource>

    private let parent: Parent
    private var connectionIdSnapshot: Int64 = -1

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        let subscription = parent.source.subscribe(self)
        parent.lock.lock()
        defer { parent.lock.unlock() }
        connectionIdSnapshot = parent.connectionId
        if isDisposed {
            return Disposables.create()
        }
        if parent.count == 0 {
            parent.count = 1
            parent.connectableSubscription = parent.source.connect()
        } else {
            parent.count += 1
        }
        return Disposables.create {
            subscription.dispose()
            self.release()
        }
    }

    private func release() {
        parent.lock.lock()
        defer { parent.lock.unlock() }
        if parent.connectionId != connectionIdSnapshot { return }
        if parent.count == 1 {
            parent.count = 0
            parent.connectableSubscription?.dispose()
            parent.connectableSubscription = nil
        } else if parent.count > 1 {
            parent.count -= 1
        } else {
            rxFatalError("RefCount disposed more often than subscribed")
        }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            forwardOn(event)
        case .error, .completed:
            var connection: Disposable?
            parent.lock.performLocked {
                if parent.connectionId == connectionIdSnapshot {
                    connection = parent.connectableSubscription
                    parent.count = 0
                    parent.connectionId &+= 1
                    parent.connectableSubscription = nil
                }
            }
            connection?.dispose()
            forwardOn(event)
            dispose()
        }
    }
}

final private class RefCount<ConnectableSource: ConnectableObservableType>: Producer<ConnectableSource.Element>, @unchecked Sendable {
    // `@unchecked`: the counters are guarded by `lock`.
    fileprivate let lock = RecursiveLock()
    fileprivate var count = 0
    fileprivate var connectionId: Int64 = 0
    fileprivate var connectableSubscription: Disposable?
    fileprivate let source: ConnectableSource

    init(source: ConnectableSource) {
        self.source = source
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == ConnectableSource.Element {
        let sink = RefCountSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}

// MARK: - multicast(_:selector:)

final private class MulticastSink<Subject: SubjectType, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element
    typealias Parent = Multicast<Subject, Observer.Element>

    private let parent: Parent

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        do {
            let subject = try parent.subjectSelector()
            let connectable = ConnectableObservableAdapter(source: parent.source, makeSubject: { subject })
            let observable = try parent.selector(connectable)
            let subscription = observable.subscribe(self)
            let connection = connectable.connect()
            return Disposables.create(subscription, connection)
        } catch {
            forwardOn(.error(error))
            dispose()
            return Disposables.create()
        }
    }

    func on(_ event: Event<Element>) {
        forwardOn(event)
        if event.isStopEvent {
            dispose()
        }
    }
}

final private class Multicast<Subject: SubjectType, Result>: Producer<Result>, @unchecked Sendable {
    typealias SubjectSelector = () throws -> Subject
    typealias Selector = (Observable<Subject.Element>) throws -> Observable<Result>

    fileprivate let source: Observable<Subject.Observer.Element>
    fileprivate let subjectSelector: SubjectSelector
    fileprivate let selector: Selector

    init(source: Observable<Subject.Observer.Element>, subjectSelector: @escaping SubjectSelector, selector: @escaping Selector) {
        self.source = source
        self.subjectSelector = subjectSelector
        self.selector = selector
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Result {
        let sink = MulticastSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
