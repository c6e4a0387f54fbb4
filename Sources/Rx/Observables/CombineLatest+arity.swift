// combineLatest for 2, 3 and 4 sources (RxSwift generates these from a template).

extension ObservableType {
    /// Merges the specified observable sequences into one observable sequence by using the selector function whenever any of the observable sequences produces an element.
    public static func combineLatest<O1: ObservableType, O2: ObservableType>(_ source1: O1, _ source2: O2, resultSelector: @escaping (O1.Element, O2.Element) throws -> Element) -> Observable<Element> {
        CombineLatest2(source1: source1.asObservable(), source2: source2.asObservable(), resultSelector: resultSelector)
    }

    /// Merges the specified observable sequences into one observable sequence of element tuples whenever any of the observable sequences produces an element.
    public static func combineLatest<O1: ObservableType, O2: ObservableType>(_ source1: O1, _ source2: O2) -> Observable<(O1.Element, O2.Element)> where Element == (O1.Element, O2.Element) {
        CombineLatest2(source1: source1.asObservable(), source2: source2.asObservable(), resultSelector: { ($0, $1) })
    }

    /// Merges the specified observable sequences into one observable sequence by using the selector function whenever any of the observable sequences produces an element.
    public static func combineLatest<O1: ObservableType, O2: ObservableType, O3: ObservableType>(_ source1: O1, _ source2: O2, _ source3: O3, resultSelector: @escaping (O1.Element, O2.Element, O3.Element) throws -> Element) -> Observable<Element> {
        CombineLatest3(source1: source1.asObservable(), source2: source2.asObservable(), source3: source3.asObservable(), resultSelector: resultSelector)
    }

    /// Merges the specified observable sequences into one observable sequence of element tuples whenever any of the observable sequences produces an element.
    public static func combineLatest<O1: ObservableType, O2: ObservableType, O3: ObservableType>(_ source1: O1, _ source2: O2, _ source3: O3) -> Observable<(O1.Element, O2.Element, O3.Element)> where Element == (O1.Element, O2.Element, O3.Element) {
        CombineLatest3(source1: source1.asObservable(), source2: source2.asObservable(), source3: source3.asObservable(), resultSelector: { ($0, $1, $2) })
    }

    /// Merges the specified observable sequences into one observable sequence by using the selector function whenever any of the observable sequences produces an element.
    public static func combineLatest<O1: ObservableType, O2: ObservableType, O3: ObservableType, O4: ObservableType>(_ source1: O1, _ source2: O2, _ source3: O3, _ source4: O4, resultSelector: @escaping (O1.Element, O2.Element, O3.Element, O4.Element) throws -> Element) -> Observable<Element> {
        CombineLatest4(source1: source1.asObservable(), source2: source2.asObservable(), source3: source3.asObservable(), source4: source4.asObservable(), resultSelector: resultSelector)
    }

    /// Merges the specified observable sequences into one observable sequence of element tuples whenever any of the observable sequences produces an element.
    public static func combineLatest<O1: ObservableType, O2: ObservableType, O3: ObservableType, O4: ObservableType>(_ source1: O1, _ source2: O2, _ source3: O3, _ source4: O4) -> Observable<(O1.Element, O2.Element, O3.Element, O4.Element)> where Element == (O1.Element, O2.Element, O3.Element, O4.Element) {
        CombineLatest4(source1: source1.asObservable(), source2: source2.asObservable(), source3: source3.asObservable(), source4: source4.asObservable(), resultSelector: { ($0, $1, $2, $3) })
    }
}

/// Subscribes each source with a `CombineLatestObserver` that writes into `setter`.
private func subscribeCombined<Element, Observer: ObserverType>(_ source: Observable<Element>, sink: CombineLatestSink<Observer>, index: Int, setter: @escaping (Element) -> Void) -> Disposable {
    let subscription = SingleAssignmentDisposable()
    let observer = CombineLatestObserver(lock: sink.lock, parent: sink, index: index, setLatestValue: setter, this: subscription)
    subscription.setDisposable(source.subscribe(observer))
    return subscription
}

// MARK: 2

final private class CombineLatestSink2<E1, E2, Observer: ObserverType>: CombineLatestSink<Observer>, @unchecked Sendable {
    typealias Parent = CombineLatest2<E1, E2, Observer.Element>

    private let parent: Parent
    private var latestElement1: E1?
    private var latestElement2: E2?

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(arity: 2, observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        Disposables.create(
            subscribeCombined(parent.source1, sink: self, index: 0) { self.latestElement1 = $0 },
            subscribeCombined(parent.source2, sink: self, index: 1) { self.latestElement2 = $0 }
        )
    }

    override func getResult() throws -> Observer.Element {
        try parent.resultSelector(latestElement1!, latestElement2!)
    }
}

final private class CombineLatest2<E1, E2, Result>: Producer<Result>, @unchecked Sendable {
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
        let sink = CombineLatestSink2(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}

// MARK: 3

final private class CombineLatestSink3<E1, E2, E3, Observer: ObserverType>: CombineLatestSink<Observer>, @unchecked Sendable {
    typealias Parent = CombineLatest3<E1, E2, E3, Observer.Element>

    private let parent: Parent
    private var latestElement1: E1?
    private var latestElement2: E2?
    private var latestElement3: E3?

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(arity: 3, observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        Disposables.create(
            subscribeCombined(parent.source1, sink: self, index: 0) { self.latestElement1 = $0 },
            subscribeCombined(parent.source2, sink: self, index: 1) { self.latestElement2 = $0 },
            subscribeCombined(parent.source3, sink: self, index: 2) { self.latestElement3 = $0 }
        )
    }

    override func getResult() throws -> Observer.Element {
        try parent.resultSelector(latestElement1!, latestElement2!, latestElement3!)
    }
}

final private class CombineLatest3<E1, E2, E3, Result>: Producer<Result>, @unchecked Sendable {
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
        let sink = CombineLatestSink3(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}

// MARK: 4

final private class CombineLatestSink4<E1, E2, E3, E4, Observer: ObserverType>: CombineLatestSink<Observer>, @unchecked Sendable {
    typealias Parent = CombineLatest4<E1, E2, E3, E4, Observer.Element>

    private let parent: Parent
    private var latestElement1: E1?
    private var latestElement2: E2?
    private var latestElement3: E3?
    private var latestElement4: E4?

    init(parent: Parent, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(arity: 4, observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        Disposables.create([
            subscribeCombined(parent.source1, sink: self, index: 0) { self.latestElement1 = $0 },
            subscribeCombined(parent.source2, sink: self, index: 1) { self.latestElement2 = $0 },
            subscribeCombined(parent.source3, sink: self, index: 2) { self.latestElement3 = $0 },
            subscribeCombined(parent.source4, sink: self, index: 3) { self.latestElement4 = $0 },
        ])
    }

    override func getResult() throws -> Observer.Element {
        try parent.resultSelector(latestElement1!, latestElement2!, latestElement3!, latestElement4!)
    }
}

final private class CombineLatest4<E1, E2, E3, E4, Result>: Producer<Result>, @unchecked Sendable {
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
        let sink = CombineLatestSink4(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink: sink, subscription: subscription)
    }
}
