/// Supports the push-style iteration over an observable sequence.
public protocol ObserverType {
    /// The type of elements in sequence that observer can observe.
    associatedtype Element

    /// Notify observer about sequence event.
    func on(_ event: Event<Element>)
}

extension ObserverType {
    /// Convenience method equivalent to `on(.next(element))`.
    public func onNext(_ element: Element) { on(.next(element)) }

    /// Convenience method equivalent to `on(.completed)`.
    public func onCompleted() { on(.completed) }

    /// Convenience method equivalent to `on(.error(error))`.
    public func onError(_ error: Swift.Error) { on(.error(error)) }
}
