/// Marks a `PrimitiveSequence` that emits exactly one element, or an error.
public enum SingleTrait {}

/// A sequence of exactly one element or an error: the shape of a request that yields one
/// response (an HTTP endpoint answering `200` with a body, or a problem document).
public typealias Single<Element> = PrimitiveSequence<SingleTrait, Element>

/// What a `Single` delivers: `.success(element)` or `.failure(error)`.
public typealias SingleEvent<Element> = Result<Element, Swift.Error>

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The callback `Single.create` hands to its subscribe closure.
    ///
    /// `@Sendable`, so work on any thread or queue may complete the `Single`.
    public typealias SingleObserver = @Sendable (SingleEvent<Element>) -> Void

    /// A `Single` whose subscription runs `subscribe`.
    ///
    /// Only the first event given to the callback counts, even when threads race; later
    /// ones are dropped. The disposable `subscribe` returns is disposed right after that
    /// first event, or when the subscriber disposes first.
    public static func create(
        subscribe: @escaping (@escaping SingleObserver) -> Disposable
    ) -> Single<Element> {
        Single(raw: Observable.createPrimitive(subscribe) { event, observer in
            switch event {
            case .success(let element):
                observer.on(.next(element))
                observer.on(.completed)
            case .failure(let error):
                observer.on(.error(error))
            }
        })
    }

    /// Subscribes `observer` to the one event of this `Single`.
    ///
    /// A raw source that completes without an element (which the trait's builders rule
    /// out) is reported as `.failure(RxError.noElements)` rather than trapping.
    public func subscribe(_ observer: @escaping (SingleEvent<Element>) -> Void) -> Disposable {
        primitiveSequence.source.subscribeFirstEvent { event in
            switch event {
            case .next(let element): observer(.success(element))
            case .error(let error): observer(.failure(error))
            case .completed: observer(.failure(RxError.noElements))
            }
        }
    }

    /// Subscribes handlers for the element, the error and the end of the subscription.
    ///
    /// `onDisposed` runs exactly once: after `onSuccess`/`onFailure`, or when the returned
    /// disposable is disposed before any event.
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil,
        onFailure: ((Swift.Error) -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let onFailure = onFailure ?? unhandledErrorReporter()
        return subscribeHandlers(onDisposed: onDisposed) { handled in
            subscribe { event in
                switch event {
                case .success(let element): onSuccess?(element)
                case .failure(let error): onFailure(error)
                }
                handled?()
            }
        }
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// `subscribe(onSuccess:onFailure:onDisposed:)` with handlers that receive `object`
    /// weakly; once `object` is released they are not called.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onSuccess: ((Object, Element) -> Void)? = nil,
        onFailure: ((Object, Swift.Error) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(onSuccess: weakly(object, onSuccess), onFailure: weakly(object, onFailure), onDisposed: weakly(object, onDisposed))
    }

    /// A `Single` that succeeds with `element`.
    public static func just(_ element: Element) -> Single<Element> {
        Single(raw: Observable.just(element))
    }

    /// A `Single` that fails with `error`.
    public static func error(_ error: Swift.Error) -> Single<Element> {
        Single(raw: Observable.error(error))
    }

    /// A `Single` that never emits.
    public static func never() -> Single<Element> {
        Single(raw: Observable.never())
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// Runs side effects for the events and the subscription, keeping the trait.
    public func `do`(
        onSuccess: ((Element) throws -> Void)? = nil,
        onError: ((Swift.Error) throws -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil,
        onDispose: (() -> Void)? = nil
    ) -> Single<Element> {
        Single(raw: primitiveSequence.source.do(
            onNext: onSuccess, onError: onError, onSubscribe: onSubscribe, onDispose: onDispose))
    }

    /// The element transformed by `transform`; a thrown error fails the `Single`.
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Single<Result> {
        Single(raw: primitiveSequence.source.map(transform))
    }

    /// A `Maybe`: the element if it satisfies `predicate`, otherwise completion.
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source.filter(predicate))
    }

    /// A `Maybe`: the non-`nil` result of `transform`, otherwise completion.
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.source.compactMap(transform))
    }

    /// Continues with the `Single` that `selector` builds from the element.
    public func flatMap<Result>(_ selector: @escaping (Element) throws -> Single<Result>) -> Single<Result> {
        Single(raw: primitiveSequence.source.flatMap { try selector($0).asObservable() })
    }

    /// Continues with the `Maybe` that `selector` builds from the element.
    public func flatMapMaybe<Result>(_ selector: @escaping (Element) throws -> Maybe<Result>) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.source.flatMap { try selector($0).asObservable() })
    }

    /// Continues with the `Completable` that `selector` builds from the element.
    public func flatMapCompletable(_ selector: @escaping (Element) throws -> Completable) -> Completable {
        Completable(raw: primitiveSequence.source.flatMap { try selector($0).asObservable() })
    }

    /// Succeeds with `element` instead of failing.
    public func catchAndReturn(_ element: Element) -> Single<Element> {
        Single(raw: primitiveSequence.source.catchAndReturn(element))
    }

    /// The same sequence as a `Maybe` (which never completes empty).
    public func asMaybe() -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source)
    }

    /// Completes when the `Single` succeeds, dropping the element.
    public func asCompletable() -> Completable {
        primitiveSequence.source.asCompletable()
    }
}
