// The only ways from an `Observable` into a shared sequence: observe on the strategy's
// scheduler, then make errors impossible, then share.

extension ObservableConvertibleType {
    /// A `Driver` that emits `onErrorJustReturn` and completes instead of failing.
    public func asDriver(onErrorJustReturn: Element) -> Driver<Element> {
        asSharedSequence(onErrorJustReturn: onErrorJustReturn)
    }

    /// A `Driver` that continues with `onErrorDriveWith` instead of failing.
    public func asDriver(onErrorDriveWith: Driver<Element>) -> Driver<Element> {
        asSharedSequence(onErrorRecover: { _ in onErrorDriveWith })
    }

    /// A `Driver` that continues with the `Driver` `onErrorRecover` returns for the error.
    public func asDriver(onErrorRecover: @escaping (_ error: Swift.Error) -> Driver<Element>) -> Driver<Element> {
        asSharedSequence(onErrorRecover: onErrorRecover)
    }

    /// A `Signal` that emits `onErrorJustReturn` and completes instead of failing.
    public func asSignal(onErrorJustReturn: Element) -> Signal<Element> {
        asSharedSequence(onErrorJustReturn: onErrorJustReturn)
    }

    /// A `Signal` that continues with `onErrorSignalWith` instead of failing.
    public func asSignal(onErrorSignalWith: Signal<Element>) -> Signal<Element> {
        asSharedSequence(onErrorRecover: { _ in onErrorSignalWith })
    }

    /// A `Signal` that continues with the `Signal` `onErrorRecover` returns for the error.
    public func asSignal(onErrorRecover: @escaping (_ error: Swift.Error) -> Signal<Element>) -> Signal<Element> {
        asSharedSequence(onErrorRecover: onErrorRecover)
    }

    /// A shared sequence of any strategy that emits `onErrorJustReturn` and completes
    /// instead of failing.
    public func asSharedSequence<S: SharingStrategyProtocol>(
        sharingStrategy: S.Type = S.self,
        onErrorJustReturn: Element
    ) -> SharedSequence<S, Element> {
        SharedSequence(asObservable().observe(on: S.scheduler).catchAndReturn(onErrorJustReturn))
    }

    /// A shared sequence of any strategy that continues with the shared sequence
    /// `onErrorRecover` returns instead of failing.
    public func asSharedSequence<S: SharingStrategyProtocol>(
        sharingStrategy: S.Type = S.self,
        onErrorRecover: @escaping (_ error: Swift.Error) -> SharedSequence<S, Element>
    ) -> SharedSequence<S, Element> {
        SharedSequence(asObservable().observe(on: S.scheduler).catch { onErrorRecover($0).asObservable() })
    }
}
