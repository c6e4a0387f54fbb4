extension ObservableType {
    /// Groups the elements by the key `keySelector` gives them: a new key emits a new
    /// `GroupedObservable`, which then gets every element with that key.
    ///
    /// The source stays subscribed while the outer sequence or any group is subscribed.
    public func groupBy<Key: Hashable>(keySelector: @escaping (Element) throws -> Key) -> Observable<GroupedObservable<Key, Element>> {
        GroupBy(source: asObservable(), selector: keySelector)
    }
}

/// The elements of one group of `groupBy`, with their shared `key`.
public struct GroupedObservable<Key, Element>: ObservableType {
    /// The key shared by the elements of the group.
    public let key: Key

    private let source: Observable<Element>

    /// A group of `source`'s elements with `key`.
    public init(key: Key, source: Observable<Element>) {
        self.key = key
        self.source = source
    }

    /// Subscribes `observer` to the group.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Element == Observer.Element {
        source.subscribe(observer)
    }

    /// The group as an `Observable`.
    public func asObservable() -> Observable<Element> { source }
}

final private class GroupBySink<Key: Hashable, Element, Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable
where Observer.Element == GroupedObservable<Key, Element> {
    private let selector: (Element) throws -> Key
    private let subscription = SingleAssignmentDisposable()
    private var refCountDisposable: RefCountDisposable!
    private var groups: [Key: PublishSubject<Element>] = [:]

    init(selector: @escaping (Element) throws -> Key, observer: Observer, cancel: Cancelable) {
        self.selector = selector
        super.init(observer: observer, cancel: cancel)
    }

    func run(_ source: Observable<Element>) -> Disposable {
        refCountDisposable = RefCountDisposable(disposable: subscription)
        subscription.setDisposable(source.subscribe(self))
        return refCountDisposable
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            do {
                let key = try selector(value)
                if let writer = groups[key] {
                    writer.on(.next(value))
                } else {
                    let writer = PublishSubject<Element>()
                    groups[key] = writer
                    forwardOn(.next(GroupedObservable(key: key, source: AddRef(source: writer.asObservable(), refCount: refCountDisposable))))
                    writer.on(.next(value))
                }
            } catch {
                fail(error)
            }
        case .error(let error):
            fail(error)
        case .completed:
            for writer in groups.values { writer.on(.completed) }
            forwardOn(.completed)
            subscription.dispose()
            dispose()
        }
    }

    private func fail(_ error: Swift.Error) {
        for writer in groups.values { writer.on(.error(error)) }
        forwardOn(.error(error))
        subscription.dispose()
        dispose()
    }
}

final private class GroupBy<Key: Hashable, Element>: Producer<GroupedObservable<Key, Element>>, @unchecked Sendable {
    private let source: Observable<Element>
    private let selector: (Element) throws -> Key

    init(source: Observable<Element>, selector: @escaping (Element) throws -> Key) {
        self.source = source
        self.selector = selector
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == GroupedObservable<Key, Element> {
        let sink = GroupBySink(selector: selector, observer: observer, cancel: cancel)
        return (sink: sink, subscription: sink.run(source))
    }
}
extension GroupedObservable: Sendable where Key: Sendable {}
