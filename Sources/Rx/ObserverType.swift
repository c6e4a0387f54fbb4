/// Supports the push-style iteration over an observable sequence.
public protocol ObserverType<Element> {
    /// The type of elements in sequence that observer can observe.
    associatedtype Element

    /// Notify observer about sequence event.
    func on(_ event: Event<Element>)

    /// Notify observer about the next element; must do exactly what `on(.next(element))` does.
    ///
    /// The default implementation calls `on(.next(element))`. Operators implement it
    /// to pass elements along without building an `Event` (in unspecialized generic
    /// code, each `Event<Element>` costs a metadata lookup).
    func onNext(_ element: Element)
}

extension ObserverType {
    /// Convenience method equivalent to `on(.next(element))`.
    public func onNext(_ element: Element) { on(.next(element)) }

    /// Convenience method equivalent to `on(.completed)`.
    public func onCompleted() { on(.completed) }

    /// Convenience method equivalent to `on(.error(error))`.
    public func onError(_ error: Swift.Error) { on(.error(error)) }
}
