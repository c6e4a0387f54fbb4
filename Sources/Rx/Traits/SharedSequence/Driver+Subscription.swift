// `drive` is the only way out of a `Driver`, and it has no error handler: none can come.

extension SharedSequenceConvertibleType where SharingStrategy == DriverSharingStrategy {
    /// Sends the elements and completion to `observers`.
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> Disposable
    where Observer.Element == Element {
        forward(to: observers)
    }

    /// Sends the elements, wrapped, and completion to `observers` of optionals.
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> Disposable
    where Observer.Element == Element? {
        forward(to: observers)
    }

    /// Accepts every element into `relays`.
    public func drive(_ relays: BehaviorRelay<Element>...) -> Disposable {
        forward { element in relays.forEach { $0.accept(element) } }
    }

    /// Accepts every element into `relays`.
    public func drive(_ relays: PublishRelay<Element>...) -> Disposable {
        forward { element in relays.forEach { $0.accept(element) } }
    }

    /// Accepts every element into `relays`.
    public func drive(_ relays: ReplayRelay<Element>...) -> Disposable {
        forward { element in relays.forEach { $0.accept(element) } }
    }

    /// Subscribes handlers for the elements, completion and the end of the subscription.
    public func drive(
        onNext: ((Element) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes handlers that receive `object` weakly; once it is released they stop.
    public func drive<Object: AnyObject>(
        with object: Object,
        onNext: ((Object, Element) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(with: object, onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes without handlers, for the side effects.
    public func drive() -> Disposable {
        drive(onNext: nil)
    }

    /// Hands the `Observable` to `transformation`, a binder that returns its own result.
    public func drive<Result>(_ transformation: (Observable<Element>) -> Result) -> Result {
        transformation(asObservable())
    }

    /// Hands the `Observable` and `curriedArgument` to a curried binder, as in
    /// `drive(tableView.rx.items(cellIdentifier:)) { row, element, cell in ... }` (RxCocoa).
    public func drive<R1, R2>(_ with: (Observable<Element>) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        with(asObservable())(curriedArgument)
    }
}
