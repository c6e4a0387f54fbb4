/// Represents a push style sequence.
public protocol ObservableType: ObservableConvertibleType {
    /// Subscribes `observer` to receive events for this sequence.
    ///
    /// Grammar: `next* (error | completed)?`. Events to one observer never overlap;
    /// after the returned disposable is disposed, no further event reaches `observer`.
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element
}

extension ObservableType {
    /// Default implementation of converting `ObservableType` to `Observable`.
    public func asObservable() -> Observable<Element> {
        Observable.create { o in self.subscribe(o) }
    }
}
