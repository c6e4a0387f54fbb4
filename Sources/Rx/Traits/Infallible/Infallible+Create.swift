/// An event of an `Infallible`: an element or completion, never an error.
public enum InfallibleEvent<Element> {
    /// Next element is produced.
    case next(Element)
    /// Sequence completed successfully.
    case completed
}

extension InfallibleEvent: Sendable where Element: Sendable {}

extension InfallibleEvent: EventConvertible {
    /// The equivalent `Event`.
    public var event: Event<Element> {
        switch self {
        case .next(let element): return .next(element)
        case .completed: return .completed
        }
    }
}

extension Infallible {
    /// The observer `create`'s closure gets.
    public typealias InfallibleObserver = (InfallibleEvent<Element>) -> Void

    /// Creates an infallible sequence from a subscribe implementation.
    ///
    /// - parameter subscribe: Implementation of the resulting sequence's `subscribe` method.
    public static func create(subscribe: @escaping (@escaping InfallibleObserver) -> Disposable) -> Infallible<Element> {
        Infallible(Observable.create { observer in
            subscribe { event in
                switch event {
                case .next(let element): observer.onNext(element)
                case .completed: observer.onCompleted()
                }
            }
        })
    }
}
