/// A type-erased `ObserverType`. Forwards operations to an arbitrary underlying observer.
///
/// `@unchecked Sendable`: the observers Rx hands out (sinks, subjects) accept calls
/// from any thread; the caller keeps the grammar (no concurrent `on` calls), as in RxSwift.
public struct AnyObserver<Element>: ObserverType, @unchecked Sendable {
    /// Anonymous event handler type.
    public typealias EventHandler = (Event<Element>) -> Void

    // A class observer is stored as is (no allocation); a closure is wrapped once.
    private let base: any ObserverType<Element>

    /// Construct an instance whose `on(event)` calls `eventHandler(event)`.
    public init(eventHandler: @escaping EventHandler) {
        base = ClosureObserver(eventHandler)
    }

    /// Construct an instance whose `on(event)` calls `observer.on(event)`.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        if let observer = observer as? AnyObserver<Element> {
            self = observer
        } else {
            base = observer
        }
    }

    /// Send `event` to this observer.
    public func on(_ event: Event<Element>) {
        base.on(event)
    }

    /// Send the next element to this observer.
    public func onNext(_ element: Element) {
        base.onNext(element)
    }

    /// Erases type of observer and returns canonical observer.
    public func asObserver() -> AnyObserver<Element> { self }
}

/// An observer that calls a closure for each event.
private final class ClosureObserver<Element>: ObserverType {
    private let eventHandler: (Event<Element>) -> Void

    init(_ eventHandler: @escaping (Event<Element>) -> Void) {
        self.eventHandler = eventHandler
    }

    func on(_ event: Event<Element>) {
        eventHandler(event)
    }
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
