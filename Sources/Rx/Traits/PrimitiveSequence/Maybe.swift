/// Marks a `PrimitiveSequence` that emits at most one element, then ends.
public enum MaybeTrait {}

/// A sequence of one element, no element, or an error: the shape of a lookup by key
/// (`GET /items/{id}` answering `200` with the item, or `404` when it completes empty).
public typealias Maybe<Element> = PrimitiveSequence<MaybeTrait, Element>

/// What a `Maybe` delivers.
public enum MaybeEvent<Element> {
    /// The one element; the sequence ends with it.
    case success(Element)
    /// The sequence failed.
    case error(Swift.Error)
    /// The sequence ended without an element.
    case completed
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// The callback `Maybe.create` hands to its subscribe closure.
    ///
    /// `@Sendable`, so work on any thread or queue may complete the `Maybe`.
    public typealias MaybeObserver = @Sendable (MaybeEvent<Element>) -> Void

    /// A `Maybe` whose subscription runs `subscribe`.
    ///
    /// Only the first event given to the callback counts, even when threads race; later
    /// ones are dropped. The disposable `subscribe` returns is disposed right after that
    /// first event, or when the subscriber disposes first.
    public static func create(
        subscribe: @escaping (@escaping MaybeObserver) -> Disposable
    ) -> Maybe<Element> {
        Maybe(raw: Observable.createPrimitive(subscribe) { event, observer in
            switch event {
            case .success(let element):
                observer.on(.next(element))
                observer.on(.completed)
            case .error(let error):
                observer.on(.error(error))
            case .completed:
                observer.on(.completed)
            }
        })
    }

    /// Subscribes `observer` to the one event of this `Maybe`.
    public func subscribe(_ observer: @escaping (MaybeEvent<Element>) -> Void) -> Disposable {
        primitiveSequence.source.subscribeFirstEvent { event in
            switch event {
            case .next(let element): observer(.success(element))
            case .error(let error): observer(.error(error))
            case .completed: observer(.completed)
            }
        }
    }

    /// Subscribes handlers for the element, the error, empty completion and the end of the
    /// subscription. `onDisposed` runs exactly once, after the other handler, or when the
    /// returned disposable is disposed before any event.
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let onError = onError ?? unhandledErrorReporter()
        return subscribeHandlers(onDisposed: onDisposed) { handled in
            subscribe { event in
                switch event {
                case .success(let element): onSuccess?(element)
                case .error(let error): onError(error)
                case .completed: onCompleted?()
                }
                handled?()
            }
        }
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// `subscribe(onSuccess:onError:onCompleted:onDisposed:)` with handlers that receive
    /// `object` weakly; once `object` is released they are not called.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onSuccess: ((Object, Element) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onSuccess: weakly(object, onSuccess), onError: weakly(object, onError),
            onCompleted: weakly(object, onCompleted), onDisposed: weakly(object, onDisposed))
    }

    /// A `Maybe` that succeeds with `element`.
    public static func just(_ element: Element) -> Maybe<Element> {
        Maybe(raw: Observable.just(element))
    }

    /// A `Maybe` that completes without an element.
    public static func empty() -> Maybe<Element> {
        Maybe(raw: Observable.empty())
    }

    /// A `Maybe` that fails with `error`.
    public static func error(_ error: Swift.Error) -> Maybe<Element> {
        Maybe(raw: Observable.error(error))
    }

    /// A `Maybe` that never emits.
    public static func never() -> Maybe<Element> {
        Maybe(raw: Observable.never())
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// Runs side effects for the events and the subscription, keeping the trait.
    public func `do`(
        onNext: ((Element) throws -> Void)? = nil,
        onError: ((Swift.Error) throws -> Void)? = nil,
        onCompleted: (() throws -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil,
        onDispose: (() -> Void)? = nil
    ) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source.do(
            onNext: onNext, onError: onError, onCompleted: onCompleted,
            onSubscribe: onSubscribe, onDispose: onDispose))
    }

    /// The element transformed by `transform`.
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.source.map(transform))
    }

    /// The element if it satisfies `predicate`, otherwise completion.
    public func filter(_ predicate: @escaping (Element) throws -> Bool) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source.filter(predicate))
    }

    /// The non-`nil` result of `transform`, otherwise completion.
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.source.compactMap(transform))
    }

    /// Continues with the `Maybe` that `selector` builds from the element.
    public func flatMap<Result>(_ selector: @escaping (Element) throws -> Maybe<Result>) -> Maybe<Result> {
        Maybe(raw: primitiveSequence.source.flatMap { try selector($0).asObservable() })
    }

    /// A `Single`: the element, or `element` when the `Maybe` completes empty.
    public func ifEmpty(default element: Element) -> Single<Element> {
        Single(raw: primitiveSequence.source.ifEmpty(default: element))
    }

    /// Continues with `other` when the `Maybe` completes empty.
    public func ifEmpty(switchTo other: Maybe<Element>) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source.ifEmpty(switchTo: other.asObservable()))
    }

    /// A `Single`: the element, or the outcome of `other` when the `Maybe` completes empty.
    public func ifEmpty(switchTo other: Single<Element>) -> Single<Element> {
        Single(raw: primitiveSequence.source.ifEmpty(switchTo: other.asObservable()))
    }

    /// Succeeds with `element` instead of failing.
    public func catchAndReturn(_ element: Element) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source.catchAndReturn(element))
    }

    /// Completes when the `Maybe` ends without error, dropping any element.
    public func asCompletable() -> Completable {
        primitiveSequence.source.asCompletable()
    }
}
