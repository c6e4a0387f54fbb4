/// Marks a `PrimitiveSequence` that never emits an element: it completes or fails.
public enum CompletableTrait {}

/// A sequence that only completes or fails: the shape of a write (an HTTP endpoint
/// answering `204 No Content`, or a problem document).
public typealias Completable = PrimitiveSequence<CompletableTrait, Never>

/// What a `Completable` delivers.
public enum CompletableEvent {
    /// The sequence failed.
    case error(Swift.Error)
    /// The sequence completed.
    case completed
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// The callback `Completable.create` hands to its subscribe closure.
    ///
    /// `@Sendable`, so work on any thread or queue may complete the `Completable`.
    public typealias CompletableObserver = @Sendable (CompletableEvent) -> Void

    /// A `Completable` whose subscription runs `subscribe`.
    ///
    /// Only the first event given to the callback counts, even when threads race; later
    /// ones are dropped. The disposable `subscribe` returns is disposed right after that
    /// first event, or when the subscriber disposes first.
    public static func create(
        subscribe: @escaping (@escaping CompletableObserver) -> Disposable
    ) -> Completable {
        Completable(raw: Observable.createPrimitive(subscribe) { event, observer in
            switch event {
            case .error(let error): observer.on(.error(error))
            case .completed: observer.on(.completed)
            }
        })
    }

    /// Subscribes `observer` to the one event of this `Completable`.
    public func subscribe(_ observer: @escaping (CompletableEvent) -> Void) -> Disposable {
        primitiveSequence.source.subscribeFirstEvent { event in
            switch event {
            case .error(let error): observer(.error(error))
            case .completed: observer(.completed)
            }
        }
    }

    /// Subscribes handlers for completion, the error and the end of the subscription.
    /// `onDisposed` runs exactly once, after the other handler, or when the returned
    /// disposable is disposed before any event.
    public func subscribe(
        onCompleted: (() -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let onError = onError ?? unhandledErrorReporter()
        return subscribeHandlers(onDisposed: onDisposed) { handled in
            subscribe { event in
                switch event {
                case .completed: onCompleted?()
                case .error(let error): onError(error)
                }
                handled?()
            }
        }
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// `subscribe(onCompleted:onError:onDisposed:)` with handlers that receive `object`
    /// weakly; once `object` is released they are not called.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onCompleted: ((Object) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(onCompleted: weakly(object, onCompleted), onError: weakly(object, onError), onDisposed: weakly(object, onDisposed))
    }

    /// A `Completable` that completes at once.
    public static func empty() -> Completable {
        Completable(raw: Observable.empty())
    }

    /// A `Completable` that fails with `error`.
    public static func error(_ error: Swift.Error) -> Completable {
        Completable(raw: Observable.error(error))
    }

    /// A `Completable` that never ends.
    public static func never() -> Completable {
        Completable(raw: Observable.never())
    }

    /// Completes when all `completables` have completed; fails with the first error.
    public static func zip(_ completables: Completable...) -> Completable {
        Completable(raw: Observable.merge(completables.map { $0.asObservable() }))
    }

    /// Runs side effects for the events and the subscription, keeping the trait.
    public func `do`(
        onError: ((Swift.Error) throws -> Void)? = nil,
        onCompleted: (() throws -> Void)? = nil,
        onSubscribe: (() -> Void)? = nil,
        onDispose: (() -> Void)? = nil
    ) -> Completable {
        Completable(raw: primitiveSequence.source.do(
            onError: onError, onCompleted: onCompleted, onSubscribe: onSubscribe, onDispose: onDispose))
    }
}
