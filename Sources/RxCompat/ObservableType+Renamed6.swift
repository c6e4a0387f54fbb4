import Rx

// Renamed in RxSwift 6.0 (RxSwift 6 keeps the old names as `deprecated` forwards).

extension ObservableType {
    /// `observe(on:)`: deliver events on `scheduler`. Same semantics since RxSwift 1.
    public func observeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        observe(on: scheduler)
    }

    /// `subscribe(on:)`: subscribe (and dispose) on `scheduler`. Same semantics.
    public func subscribeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        subscribe(on: scheduler)
    }

    /// `catch(_:)`: continue with the sequence `handler` returns for the error.
    public func catchError(_ handler: @escaping (Swift.Error) throws -> Observable<Element>) -> Observable<Element> {
        self.catch(handler)
    }

    /// `catchAndReturn(_:)`: end with `element` (then complete) instead of the error.
    /// (2.0.0-alpha.2 had renamed `catchErrorResumeNext` to this name.)
    public func catchErrorJustReturn(_ element: Element) -> Observable<Element> {
        catchAndReturn(element)
    }

    /// `take(until:)`: elements until `other` emits an element.
    public func takeUntil<Source: ObservableType>(_ other: Source) -> Observable<Element> {
        take(until: other)
    }

    /// `take(while:)`: elements while `predicate` holds (the failing one not included).
    public func takeWhile(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        take(while: predicate)
    }

    /// `skip(while:)`: drops elements while `predicate` holds.
    public func skipWhile(_ predicate: @escaping (Element) throws -> Bool) -> Observable<Element> {
        skip(while: predicate)
    }

    /// `skip(until:)`: drops elements until `other` emits an element.
    public func skipUntil<Source: ObservableType>(_ other: Source) -> Observable<Element> {
        skip(until: other)
    }

    /// `element(at:)`: only the element at `index` (`RxError.argumentOutOfRange` if the
    /// source completes before it).
    public func elementAt(_ index: Int) -> Observable<Element> {
        element(at: index)
    }
}

extension ObservableType {
    /// `take(for:scheduler:)`: elements for `duration`, then completion (RxSwift 6.0 renamed
    /// `take(_:scheduler:)`).
    public func take(_ duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        take(for: duration, scheduler: scheduler)
    }

    /// `skip(for:scheduler:)`: drops elements for `duration` (RxSwift 6.0 renamed
    /// `skip(_:scheduler:)`).
    public func skip(_ duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        skip(for: duration, scheduler: scheduler)
    }
}
