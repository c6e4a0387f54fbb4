extension ObservableConvertibleType {
    /// An `Infallible` that emits `element` and completes instead of an error.
    public func asInfallible(onErrorJustReturn element: Element) -> Infallible<Element> {
        Infallible(asObservable().catchAndReturn(element))
    }

    /// An `Infallible` that continues with `infallible` instead of an error.
    public func asInfallible(onErrorFallbackTo infallible: Infallible<Element>) -> Infallible<Element> {
        Infallible(asObservable().catch { _ in infallible.asObservable() })
    }

    /// An `Infallible` that continues with the sequence `onErrorRecover` makes of an error.
    public func asInfallible(onErrorRecover: @escaping (Swift.Error) -> Infallible<Element>) -> Infallible<Element> {
        Infallible(asObservable().catch { onErrorRecover($0).asObservable() })
    }
}

extension BehaviorRelay {
    /// The relay as an `Infallible` (a relay never errors).
    public func asInfallible() -> Infallible<Element> { Infallible(asObservable()) }
}

extension PublishRelay {
    /// The relay as an `Infallible` (a relay never errors).
    public func asInfallible() -> Infallible<Element> { Infallible(asObservable()) }
}

extension ReplayRelay {
    /// The relay as an `Infallible` (a relay never errors).
    public func asInfallible() -> Infallible<Element> { Infallible(asObservable()) }
}

extension SharedSequence {
    /// The shared sequence as an `Infallible` (it can't error).
    public func asInfallible() -> Infallible<Element> { Infallible(asObservable()) }
}
