import Rx

extension Disposable {
    /// `disposed(by:)`: RxSwift 2.0.0-alpha.1 introduced `addDisposableTo`; 3.2.0 added
    /// `disposed(by:)` to replace it in 4.0, and 4.x marks it deprecated. Same semantics.
    public func addDisposableTo(_ bag: DisposeBag) {
        disposed(by: bag)
    }
}
