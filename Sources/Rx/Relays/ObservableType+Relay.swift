extension ObservableType {
    /// Creates a new subscription and sends elements to the given relays.
    /// Errors are not allowed on relays: in debug builds an error is a programmer error.
    public func bind(to relays: PublishRelay<Element>...) -> Disposable {
        subscribe { event in
            switch event {
            case .next(let element): relays.forEach { $0.accept(element) }
            case .error(let error): assertionFailure("Binding error to publish relay: \(error)")
            case .completed: break
            }
        }
    }

    /// Creates a new subscription and sends elements to the given relays.
    public func bind(to relays: BehaviorRelay<Element>...) -> Disposable {
        subscribe { event in
            switch event {
            case .next(let element): relays.forEach { $0.accept(element) }
            case .error(let error): assertionFailure("Binding error to behavior relay: \(error)")
            case .completed: break
            }
        }
    }

    /// Creates a new subscription and sends elements to the given observers.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable where Observer.Element == Element {
        subscribe { event in
            observers.forEach { $0.on(event) }
        }
    }
}
