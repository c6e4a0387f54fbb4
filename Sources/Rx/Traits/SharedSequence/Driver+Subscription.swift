// `drive` is the only way out of a `Driver`, and it has no error handler: none can come.

extension SharedSequenceConvertibleType where SharingStrategy == DriverSharingStrategy {
    /// Sends the elements and completion to `observers`.
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> Disposable
    where Observer.Element == Element {
        asSharedSequence().asObservable().subscribe { event in
            observers.forEach { $0.on(event) }
        }
    }

    /// Sends the elements, wrapped, and completion to `observers` of optionals.
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> Disposable
    where Observer.Element == Element? {
        asSharedSequence().asObservable().map { $0 as Element? }.subscribe { event in
            observers.forEach { $0.on(event) }
        }
    }

    /// Accepts every element into `relays`.
    public func drive(_ relays: BehaviorRelay<Element>...) -> Disposable {
        drive(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Accepts every element into `relays`.
    public func drive(_ relays: PublishRelay<Element>...) -> Disposable {
        drive(onNext: { element in relays.forEach { $0.accept(element) } })
    }

    /// Subscribes handlers for the elements, completion and the end of the subscription.
    public func drive(
        onNext: ((Element) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        asSharedSequence().asObservable().subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes without handlers, for the side effects.
    public func drive() -> Disposable {
        drive(onNext: nil)
    }

    /// Hands the `Observable` to `transformation`, a binder that returns its own result.
    public func drive<Result>(_ transformation: (Observable<Element>) -> Result) -> Result {
        transformation(asObservable())
    }
}
