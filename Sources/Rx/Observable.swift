/// A type-erased `ObservableType`: a push-style sequence of `Element`s.
///
/// It is `Sendable` because it is immutable once built: every operator stores only
/// its source and parameters, and all per-subscription state lives in sinks.
public class Observable<Element>: ObservableType, @unchecked Sendable {
    init() {
        Resources.incrementTotal()
    }

    /// Subscribes `observer` to this sequence.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        rxAbstractMethod()
    }

    /// Returns `self`.
    public func asObservable() -> Observable<Element> { self }

    deinit {
        Resources.decrementTotal()
    }
}
