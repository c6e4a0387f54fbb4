// bind(to:) for relays (RxRelay) and observers (RxCocoa), several at once, with optional
// variants. A relay can't take an error: binding one is a programmer error, fatal in
// debug builds (as RxSwift's `rxFatalErrorInDebug`).

extension ObservableType {
    /// Sends the elements to every relay in `relays`.
    public func bind(to relays: PublishRelay<Element>...) -> Disposable {
        bind(to: relays) { relay, element in relay.accept(element) }
    }

    /// Sends the elements, as optionals, to every relay in `relays`.
    public func bind(to relays: PublishRelay<Element?>...) -> Disposable {
        map { $0 as Element? }.bind(to: relays) { relay, element in relay.accept(element) }
    }

    /// Sends the elements to every relay in `relays`.
    public func bind(to relays: BehaviorRelay<Element>...) -> Disposable {
        bind(to: relays) { relay, element in relay.accept(element) }
    }

    /// Sends the elements, as optionals, to every relay in `relays`.
    public func bind(to relays: BehaviorRelay<Element?>...) -> Disposable {
        map { $0 as Element? }.bind(to: relays) { relay, element in relay.accept(element) }
    }

    /// Sends the elements to every relay in `relays`.
    public func bind(to relays: ReplayRelay<Element>...) -> Disposable {
        bind(to: relays) { relay, element in relay.accept(element) }
    }

    /// Sends the elements, as optionals, to every relay in `relays`.
    public func bind(to relays: ReplayRelay<Element?>...) -> Disposable {
        map { $0 as Element? }.bind(to: relays) { relay, element in relay.accept(element) }
    }

    private func bind<Relay>(to relays: [Relay], accept: @escaping (Relay, Element) -> Void) -> Disposable {
        subscribe { event in
            switch event {
            case .next(let element): relays.forEach { accept($0, element) }
            case .error(let error): rxFatalErrorInDebug("Binding error to relay: \(error)")
            case .completed: break
            }
        }
    }

    /// Sends every event to all `observers`.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable where Observer.Element == Element {
        subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Sends every event, elements as optionals, to all `observers`.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable where Observer.Element == Element? {
        map { $0 as Element? }.subscribe { event in observers.forEach { $0.on(event) } }
    }

    /// Applies `binder` to `self` (a binding function that returns its subscription).
    public func bind<Result>(to binder: (Self) -> Result) -> Result {
        binder(self)
    }

    /// Applies a curried binding function to `self` and `curriedArgument`.
    public func bind<R1, R2>(to binder: (Self) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        binder(self)(curriedArgument)
    }

    /// Subscribes an element handler; errors are a programmer error (fatal in debug builds).
    public func bind(onNext: @escaping (Element) -> Void) -> Disposable {
        subscribe(onNext: onNext, onError: { error in rxFatalErrorInDebug("Binding error: \(error)") })
    }
}
