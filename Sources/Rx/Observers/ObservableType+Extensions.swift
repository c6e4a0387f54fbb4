extension ObservableType {
    /// Subscribes an event handler to an observable sequence.
    ///
    /// - parameter on: Action to invoke for each event in the observable sequence.
    /// - returns: Subscription object used to unsubscribe from the observable sequence.
    public func subscribe(_ on: @escaping (Event<Element>) -> Void) -> Disposable {
        let observer = AnonymousObserver { e in on(e) }
        return asObservable().subscribe(observer)
    }

    /// Subscribes element, error, completion and disposal handlers to the sequence.
    ///
    /// `onDisposed` runs once: after a terminal event, or when the returned disposable is disposed.
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        // Without an error handler, an error goes to `Hooks.defaultErrorHandler` (as in RxSwift).
        let onError = onError ?? unhandledErrorReporter()
        guard let onDisposed else {
            // Nothing to run on disposal: the subscription alone will do.
            let observer = SubscribeObserver<Element>(onNext: onNext, onError: onError, onCompleted: onCompleted, disposable: Disposables.create())
            return asObservable().subscribe(observer)
        }
        let disposable = Disposables.create(with: onDisposed)
        let observer = SubscribeObserver<Element>(onNext: onNext, onError: onError, onCompleted: onCompleted, disposable: disposable)
        return Disposables.create(asObservable().subscribe(observer), disposable)
    }

    /// Subscribes handlers that receive `object` weakly; once `object` is released,
    /// the handlers are no longer called.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onNext: ((Object, Element) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onNext: { [weak object] in
                guard let object else { return }
                onNext?(object, $0)
            },
            onError: { [weak object] in
                guard let object else { return }
                onError?(object, $0)
            },
            onCompleted: { [weak object] in
                guard let object else { return }
                onCompleted?(object)
            },
            onDisposed: { [weak object] in
                guard let object else { return }
                onDisposed?(object)
            }
        )
    }
}

/// The observer of `subscribe(onNext:onError:onCompleted:onDisposed:)`: calls the
/// handlers directly, and disposes `disposable` (running `onDisposed`) after a terminal event.
final private class SubscribeObserver<Element>: ObserverBase<Element>, @unchecked Sendable {
    private let onNextHandler: ((Element) -> Void)?
    private let onErrorHandler: ((Swift.Error) -> Void)?
    private let onCompletedHandler: (() -> Void)?
    private let disposable: Disposable

    init(onNext: ((Element) -> Void)?, onError: ((Swift.Error) -> Void)?, onCompleted: (() -> Void)?, disposable: Disposable) {
        onNextHandler = onNext
        onErrorHandler = onError
        onCompletedHandler = onCompleted
        self.disposable = disposable
        super.init()
        Resources.incrementTotal()
    }

    override func onNextCore(_ element: Element) {
        onNextHandler?(element)
    }

    override func onCore(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            onNextHandler?(value)
        case .error(let error):
            onErrorHandler?(error)
            disposable.dispose()
        case .completed:
            onCompletedHandler?()
            disposable.dispose()
        }
    }

    deinit { Resources.decrementTotal() }
}

/// An error handler that reports to `Hooks.defaultErrorHandler`, with the subscription's
/// call stack when `Hooks.recordCallStackOnError` is on.
func unhandledErrorReporter() -> (Swift.Error) -> Void {
    if !Hooks.recordCallStackOnError {
        // Shared: no closure is allocated per subscription on the common path.
        return reportUnhandledWithoutCallStack
    }
    let callStack = Hooks.captureSubscriptionCallStack()
    return { error in Hooks.reportUnhandled(error, callStack: callStack) }
}

private let reportUnhandledWithoutCallStack: @Sendable (Swift.Error) -> Void = { error in
    Hooks.reportUnhandled(error, callStack: [])
}
