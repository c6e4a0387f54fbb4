// zip for 2, 3 and 4 sources (RxSwift generates these from a template).

extension ObservableType {
    /// Merges the specified observable sequences into one observable sequence by using the selector function whenever all of the observable sequences have produced an element at a corresponding index.
    public static func zip<O1: ObservableType, O2: ObservableType>(_ source1: O1, _ source2: O2, resultSelector: @escaping (O1.Element, O2.Element) throws -> Element) -> Observable<Element> {
        Zip2(source1: source1.asObservable(), source2: source2.asObservable(), resultSelector: resultSelector)
    }

    /// Merges the specified observable sequences into one observable sequence of tuples whenever all of the observable sequences have produced an element at a corresponding index.
    public static func zip<O1: ObservableType, O2: ObservableType>(_ source1: O1, _ source2: O2) -> Observable<(O1.Element, O2.Element)> where Element == (O1.Element, O2.Element) {
        Zip2(source1: source1.asObservable(), source2: source2.asObservable(), resultSelector: { ($0, $1) })
    }

    /// Merges the specified observable sequences into one observable sequence by using the selector function whenever all of the observable sequences have produced an element at a corresponding index.
    public static func zip<O1: ObservableType, O2: ObservableType, O3: ObservableType>(_ source1: O1, _ source2: O2, _ source3: O3, resultSelector: @escaping (O1.Element, O2.Element, O3.Element) throws -> Element) -> Observable<Element> {
        Zip3(source1: source1.asObservable(), source2: source2.asObservable(), source3: source3.asObservable(), resultSelector: resultSelector)
    }

    /// Merges the specified observable sequences into one observable sequence of tuples whenever all of the observable sequences have produced an element at a corresponding index.
    public static func zip<O1: ObservableType, O2: ObservableType, O3: ObservableType>(_ source1: O1, _ source2: O2, _ source3: O3) -> Observable<(O1.Element, O2.Element, O3.Element)> where Element == (O1.Element, O2.Element, O3.Element) {
        Zip3(source1: source1.asObservable(), source2: source2.asObservable(), source3: source3.asObservable(), resultSelector: { ($0, $1, $2) })
    }

    /// Merges the specified observable sequences into one observable sequence by using the selector function whenever all of the observable sequences have produced an element at a corresponding index.
    public static func zip<O1: ObservableType, O2: ObservableType, O3: ObservableType, O4: ObservableType>(_ source1: O1, _ source2: O2, _ source3: O3, _ source4: O4, resultSelector: @escaping (O1.Element, O2.Element, O3.Element, O4.Element) throws -> Element) -> Observable<Element> {
        Zip4(source1: source1.asObservable(), source2: source2.asObservable(), source3: source3.asObservable(), source4: source4.asObservable(), resultSelector: resultSelector)
    }

    /// Merges the specified observable sequences into one observable sequence of tuples whenever all of the observable sequences have produced an element at a corresponding index.
    public static func zip<O1: ObservableType, O2: ObservableType, O3: ObservableType, O4: ObservableType>(_ source1: O1, _ source2: O2, _ source3: O3, _ source4: O4) -> Observable<(O1.Element, O2.Element, O3.Element, O4.Element)> where Element == (O1.Element, O2.Element, O3.Element, O4.Element) {
        Zip4(source1: source1.asObservable(), source2: source2.asObservable(), source3: source3.asObservable(), source4: source4.asObservable(), resultSelector: { ($0, $1, $2, $3) })
    }
}

/// Subscribes one source with a `ZipObserver` that enqueues into `setter`.
private func subscribeZipped<Element, Observer: ObserverType>(_ source: Observable<Element>, sink: ZipSink<Observer>, index: Int, setter: @escaping (Element) -> Void) -> Disposable {
    let subscription = SingleAssignmentDisposable()
    let observer = ZipObserver(lock: sink.lock, parent: sink, index: index, setNextValue: setter, this: subscription)
    subscription.setDisposable(source.subscribe(observer))
    return subscription
}

// MARK: 2

final private class ZipSink2<E1, E2, Observer: ObserverType>: ZipSink<Observer>, @unchecked Sendable {
    typealias Parent = Zip2<E1, E2, Observer.Element>

    private let parent: Parent
    private var values1 = Queue<E1>(capacity: 2)
    private var values2 = Queue<E2>(capacity: 2)

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(arity: 2, observer: observer, cancel: cancel)
    }

    override func hasElements(_ index: Int) -> Bool {
        switch index {
        case 0: return !values1.isEmpty
        case 1: return !values2.isEmpty
        default: rxFatalError("Unhandled case \(index)")
        }
    }

    func run() -> Disposable {
        Disposables.create(
            subscribeZipped(parent.source1, sink: self, index: 0) { self.values1.enqueue($0) },
            subscribeZipped(parent.source2, sink: self, index: 1) { self.values2.enqueue($0) }
        )
    }

    override func getResult() throws -> Observer.Element {
        try parent.resultSelector(values1.dequeue()!, values2.dequeue()!)
    }
}

final private class Zip2<E1, E2, Result>: Producer<Result>, @unchecked Sendable {
    typealias ResultSelector = (E1, E2) throws -> Result

    let source1: Observable<E1>
    let source2: Observable<E2>
    let resultSelector: ResultSelector

    init(source1: Observable<E1>, source2: Observable<E2>, resultSelector: @escaping ResultSelector) {
        self.source1 = source1
        self.source2 = source2
        self.resultSelector = resultSelector
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Result {
        let sink = ZipSink2(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}

// MARK: 3

final private class ZipSink3<E1, E2, E3, Observer: ObserverType>: ZipSink<Observer>, @unchecked Sendable {
    typealias Parent = Zip3<E1, E2, E3, Observer.Element>

    private let parent: Parent
    private var values1 = Queue<E1>(capacity: 2)
    private var values2 = Queue<E2>(capacity: 2)
    private var values3 = Queue<E3>(capacity: 2)

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(arity: 3, observer: observer, cancel: cancel)
    }

    override func hasElements(_ index: Int) -> Bool {
        switch index {
        case 0: return !values1.isEmpty
        case 1: return !values2.isEmpty
        case 2: return !values3.isEmpty
        default: rxFatalError("Unhandled case \(index)")
        }
    }

    func run() -> Disposable {
        Disposables.create(
            subscribeZipped(parent.source1, sink: self, index: 0) { self.values1.enqueue($0) },
            subscribeZipped(parent.source2, sink: self, index: 1) { self.values2.enqueue($0) },
            subscribeZipped(parent.source3, sink: self, index: 2) { self.values3.enqueue($0) }
        )
    }

    override func getResult() throws -> Observer.Element {
        try parent.resultSelector(values1.dequeue()!, values2.dequeue()!, values3.dequeue()!)
    }
}

final private class Zip3<E1, E2, E3, Result>: Producer<Result>, @unchecked Sendable {
    typealias ResultSelector = (E1, E2, E3) throws -> Result

    let source1: Observable<E1>
    let source2: Observable<E2>
    let source3: Observable<E3>
    let resultSelector: ResultSelector

    init(source1: Observable<E1>, source2: Observable<E2>, source3: Observable<E3>, resultSelector: @escaping ResultSelector) {
        self.source1 = source1
        self.source2 = source2
        self.source3 = source3
        self.resultSelector = resultSelector
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Result {
        let sink = ZipSink3(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}

// MARK: 4

final private class ZipSink4<E1, E2, E3, E4, Observer: ObserverType>: ZipSink<Observer>, @unchecked Sendable {
    typealias Parent = Zip4<E1, E2, E3, E4, Observer.Element>

    private let parent: Parent
    private var values1 = Queue<E1>(capacity: 2)
    private var values2 = Queue<E2>(capacity: 2)
    private var values3 = Queue<E3>(capacity: 2)
    private var values4 = Queue<E4>(capacity: 2)

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(arity: 4, observer: observer, cancel: cancel)
    }

    override func hasElements(_ index: Int) -> Bool {
        switch index {
        case 0: return !values1.isEmpty
        case 1: return !values2.isEmpty
        case 2: return !values3.isEmpty
        case 3: return !values4.isEmpty
        default: rxFatalError("Unhandled case \(index)")
        }
    }

    func run() -> Disposable {
        Disposables.create([
            subscribeZipped(parent.source1, sink: self, index: 0) { self.values1.enqueue($0) },
            subscribeZipped(parent.source2, sink: self, index: 1) { self.values2.enqueue($0) },
            subscribeZipped(parent.source3, sink: self, index: 2) { self.values3.enqueue($0) },
            subscribeZipped(parent.source4, sink: self, index: 3) { self.values4.enqueue($0) },
        ])
    }

    override func getResult() throws -> Observer.Element {
        try parent.resultSelector(values1.dequeue()!, values2.dequeue()!, values3.dequeue()!, values4.dequeue()!)
    }
}

final private class Zip4<E1, E2, E3, E4, Result>: Producer<Result>, @unchecked Sendable {
    typealias ResultSelector = (E1, E2, E3, E4) throws -> Result

    let source1: Observable<E1>
    let source2: Observable<E2>
    let source3: Observable<E3>
    let source4: Observable<E4>
    let resultSelector: ResultSelector

    init(source1: Observable<E1>, source2: Observable<E2>, source3: Observable<E3>, source4: Observable<E4>, resultSelector: @escaping ResultSelector) {
        self.source1 = source1
        self.source2 = source2
        self.source3 = source3
        self.source4 = source4
        self.resultSelector = resultSelector
    }

    override func run<Observer: ObserverType>(_ observer: Observer, cancel: Cancelable) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Result {
        let sink = ZipSink4(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
