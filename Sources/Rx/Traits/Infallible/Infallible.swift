/// A type that is, or can present itself as, an `Infallible`; its operators are defined on it.
public protocol InfallibleType: ObservableConvertibleType {}

/// An `Observable`-like sequence that is guaranteed never to emit an error.
///
/// Unlike `SharedSequence` (`Driver`, `Signal`) it neither shares its subscription nor
/// delivers on a particular scheduler: it acts as a plain `Observable`. On a server it
/// is the type of a stream that can't fail and needn't be shared (a per-request feed).
public struct Infallible<Element>: InfallibleType, Sendable {
    private let source: Observable<Element>

    /// Wraps `source`; callers inside the module promise it never errors.
    init(_ source: Observable<Element>) {
        self.source = source
    }

    /// The wrapped sequence, for use with every `Observable` operator.
    public func asObservable() -> Observable<Element> { source }
}

extension InfallibleType {
    /// Subscribes element, completion and disposal handlers (no error handler: none can come).
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes handlers that receive `object` weakly; once it is released they are not called.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onNext: ((Object, Element) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(with: object, onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes an event handler.
    public func subscribe(_ on: @escaping (InfallibleEvent<Element>) -> Void) -> Disposable {
        asObservable().subscribe { event in
            switch event {
            case .next(let element): on(.next(element))
            case .completed: on(.completed)
            case .error(let error): rxFatalErrorInDebug("Infallible must never emit an error event. error: \(error)")
            }
        }
    }
}

extension Infallible {
    /// `self`.
    public func asInfallible() -> Infallible<Element> { self }
}
