import Rx

// RxSwift 6.0 made `SingleEvent` a `Result` (`.success`/`.failure`); up to 5.x it had its
// own `.success`/`.error` cases, and `subscribe` took `onError:`.

extension Result where Failure == Swift.Error {
    /// `.failure(error)`, for `single(.error(error))` in a `Single.create` body. (A `switch`
    /// over a `SingleEvent` still needs `case .failure`: a pattern can't name a function.)
    public static func error(_ error: Swift.Error) -> Result<Success, Failure> {
        .failure(error)
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// `subscribe(onSuccess:onFailure:onDisposed:)` with RxSwift 5's `onError:` label.
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        subscribe(onSuccess: onSuccess, onFailure: onError, onDisposed: onDisposed)
    }
}
