// What `drive` and `emit` share: the two names differ only to say which trait is used.

extension SharedSequenceConvertibleType {
    /// Sends every event to each of `observers`.
    func forward<Observer: ObserverType>(to observers: [Observer]) -> Disposable where Observer.Element == Element {
        asObservable().subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Sends every event, its element wrapped, to each of `observers`.
    func forward<Observer: ObserverType>(to observers: [Observer]) -> Disposable where Observer.Element == Element? {
        asObservable().map { $0 as Element? }.subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Passes every element to `accept`.
    func forward(accept: @escaping (Element) -> Void) -> Disposable {
        asObservable().subscribe(onNext: accept)
    }
}
