/// A type-erased `ObserverType`. Forwards operations to an arbitrary underlying observer.
///
/// `@unchecked Sendable`: the observers Rx hands out (sinks, subjects) accept calls
/// from any thread; the caller keeps the grammar (no concurrent `on` calls), as in RxSwift.
public struct AnyObserver<Element>: ObserverType, @unchecked Sendable {
    /// Anonymous event handler type.
    public typealias EventHandler = (Event<Element>) -> Void

    private let observer: EventHandler

    /// Construct an instance whose `on(event)` calls `eventHandler(event)`.
    public init(eventHandler: @escaping EventHandler) {
        self.observer = eventHandler
    }

    /// Construct an instance whose `on(event)` calls `observer.on(event)`.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        self.observer = observer.on
    }

    /// Send `event` to this observer.
    public func on(_ event: Event<Element>) {
        observer(event)
    }

    /// Erases type of observer and returns canonical observer.
    public func asObserver() -> AnyObserver<Element> { self }
}

extension ObserverType {
    /// Erases type of observer and returns canonical observer.
    public func asObserver() -> AnyObserver<Element> {
        AnyObserver(self)
    }

    /// Transforms observer of type R to type E using a mapping function.
    public func mapObserver<Result>(_ transform: @escaping (Result) throws -> Element) -> AnyObserver<Result> {
        AnyObserver { e in self.on(e.map(transform)) }
    }
}
