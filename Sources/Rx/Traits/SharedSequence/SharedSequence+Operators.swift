// Operators keep the strategy: none of them can introduce an error (their closures don't
// throw), and each result is shared again with the strategy. Time-based operators run
// their timers on a fresh scheduler of the strategy, so the result stays serial.

extension SharedSequenceConvertibleType {
    /// Each element transformed by `transform`.
    public func map<Result>(_ transform: @escaping (Element) -> Result) -> SharedSequence<SharingStrategy, Result> {
        SharedSequence(asObservable().map(transform))
    }

    /// The non-`nil` results of `transform`.
    public func compactMap<Result>(_ transform: @escaping (Element) -> Result?) -> SharedSequence<SharingStrategy, Result> {
        SharedSequence(asObservable().compactMap(transform))
    }

    /// The elements that satisfy `predicate`.
    public func filter(_ predicate: @escaping (Element) -> Bool) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().filter(predicate))
    }

    /// The elements of the shared sequence built from the latest element; a new element
    /// disposes the previous inner sequence.
    public func flatMapLatest<Sharing: SharedSequenceConvertibleType>(
        _ selector: @escaping (Element) -> Sharing
    ) -> SharedSequence<SharingStrategy, Sharing.Element> where Sharing.SharingStrategy == SharingStrategy {
        SharedSequence(asObservable().flatMapLatest { selector($0).asObservable() })
    }

    /// The merged elements of the shared sequences built from every element.
    public func flatMap<Sharing: SharedSequenceConvertibleType>(
        _ selector: @escaping (Element) -> Sharing
    ) -> SharedSequence<SharingStrategy, Sharing.Element> where Sharing.SharingStrategy == SharingStrategy {
        SharedSequence(asObservable().flatMap { selector($0).asObservable() })
    }

    /// The elements of the shared sequences built from every element, one after another.
    public func concatMap<Sharing: SharedSequenceConvertibleType>(
        _ selector: @escaping (Element) -> Sharing
    ) -> SharedSequence<SharingStrategy, Sharing.Element> where Sharing.SharingStrategy == SharingStrategy {
        SharedSequence(asObservable().concatMap { selector($0).asObservable() })
    }

    /// Runs side effects for the events and the subscription.
    public func `do`(
        onNext: ((Element) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil,
        onDispose: (() -> Void)? = nil
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().do(
            onNext: onNext, onCompleted: onCompleted, onSubscribe: onSubscribe, onDispose: onDispose))
    }

    /// The elements that differ from their predecessor by `comparer`.
    public func distinctUntilChanged(
        _ comparer: @escaping (Element, Element) -> Bool
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().distinctUntilChanged(comparer))
    }

    /// `elements` first, then the elements of this sequence.
    public func startWith(_ elements: Element...) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(elements.reversed().reduce(asObservable()) { $0.startWith($1) })
    }

    /// The running results of `accumulator`, starting from `seed`.
    public func scan<State>(
        _ seed: State, accumulator: @escaping (State, Element) -> State
    ) -> SharedSequence<SharingStrategy, State> {
        SharedSequence(asObservable().scan(seed, accumulator: accumulator))
    }

    /// Each element combined by `resultSelector` with the latest element of `second`;
    /// elements before `second` has one are dropped.
    public func withLatestFrom<Second: SharedSequenceConvertibleType, Result>(
        _ second: Second, resultSelector: @escaping (Element, Second.Element) -> Result
    ) -> SharedSequence<SharingStrategy, Result> {
        SharedSequence(asObservable().withLatestFrom(second.asObservable(), resultSelector: resultSelector))
    }

    /// The latest element of `second` at each element of this sequence.
    public func withLatestFrom<Second: SharedSequenceConvertibleType>(
        _ second: Second
    ) -> SharedSequence<SharingStrategy, Second.Element> {
        SharedSequence(asObservable().withLatestFrom(second.asObservable()))
    }

    /// The elements after the first `count`.
    public func skip(_ count: Int) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().skip(count))
    }

    /// The first `count` elements, then completion.
    public func take(_ count: Int) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().take(count))
    }

    /// At most one element per `dueTime`: the first of a window at once, and with `latest`
    /// the newest of the window at its end.
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().throttle(dueTime, latest: latest, scheduler: SharingStrategy.scheduler))
    }

    /// An element only once `dueTime` has passed without a newer one.
    public func debounce(_ dueTime: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().debounce(dueTime, scheduler: SharingStrategy.scheduler))
    }

    /// The events shifted `dueTime` later.
    public func delay(_ dueTime: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().delay(dueTime, scheduler: SharingStrategy.scheduler))
    }
}

extension SharedSequenceConvertibleType where Element: Equatable {
    /// The elements that differ from their predecessor.
    public func distinctUntilChanged() -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().distinctUntilChanged())
    }
}

extension SharedSequence {
    /// The elements of all `sources`, as they come.
    public static func merge(_ sources: SharedSequence<SharingStrategy, Element>...) -> SharedSequence<SharingStrategy, Element> {
        merge(sources)
    }

    /// The elements of all `sources`, as they come.
    public static func merge<C: Collection>(_ sources: C) -> SharedSequence<SharingStrategy, Element>
    where C.Element == SharedSequence<SharingStrategy, Element> {
        SharedSequence(Observable.merge(sources.map { $0.asObservable() }))
    }

    /// The latest elements of all `sources`, in order, once each has one.
    public static func combineLatest<Source>(
        _ sources: [SharedSequence<SharingStrategy, Source>]
    ) -> SharedSequence<SharingStrategy, Element> where Element == [Source] {
        SharedSequence(Observable.combineLatest(sources.map { $0.asObservable() }))
    }

    /// The elements of all `sources` paired by index, in order.
    public static func zip<Source>(
        _ sources: [SharedSequence<SharingStrategy, Source>]
    ) -> SharedSequence<SharingStrategy, Element> where Element == [Source] {
        SharedSequence(Observable.zip(sources.map { $0.asObservable() }))
    }
}

extension SharedSequenceConvertibleType {
    /// Prints every subscription, event and disposal (see `ObservableType.debug`).
    public func debug(_ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line, function: String = #function) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: asObservable().debug(identifier, trimOutput: trimOutput, file: file, line: line, function: function))
    }
}
