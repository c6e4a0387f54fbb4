import Rx

// `bindTo` was deprecated in RxSwift 3.4.0 in favour of `bind(to:)`; same semantics (an
// error reaching a binding is a programmer error). The optional-observer variant is
// 3.0.0-rc.1's, so an `Observable<String>` binds to a `String?` observer.

extension ObservableType {
    /// `bind(to:)` an observer of `Element`.
    public func bindTo<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        bind(to: observer)
    }

    /// `bind(to:)` an observer of `Element?`.
    public func bindTo<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element? {
        bind(to: observer)
    }

    /// `bind(to:)` a binding function (`(Self) -> Result`).
    public func bindTo<Result>(_ binder: (Self) -> Result) -> Result {
        bind(to: binder)
    }

    /// `bind(to:curriedArgument:)`, as in `bindTo(tableView.rx.items(cellIdentifier:)) { row, element, cell in ... }`.
    public func bindTo<R1, R2>(_ binder: (Self) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        bind(to: binder, curriedArgument: curriedArgument)
    }
}
