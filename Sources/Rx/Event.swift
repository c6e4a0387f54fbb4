/// A sequence event: an element, an error, or completion.
///
/// Sequence grammar: `next* (error | completed)?`
@frozen
public enum Event<Element> {
    /// Next element is produced.
    case next(Element)
    /// Sequence terminated with an error.
    case error(Swift.Error)
    /// Sequence completed successfully.
    case completed
}

extension Event: Sendable where Element: Sendable {}

extension Event: CustomDebugStringConvertible {
    /// Description of the event.
    public var debugDescription: String {
        switch self {
        case .next(let value): return "next(\(value))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

extension Event {
    /// Is `completed` or `error` event.
    public var isStopEvent: Bool {
        switch self {
        case .next: return false
        case .error, .completed: return true
        }
    }

    /// If `next` event, returns its element.
    public var element: Element? {
        if case .next(let value) = self { return value }
        return nil
    }

    /// If `error` event, returns its error.
    public var error: Swift.Error? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// If `completed` event, returns `true`.
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// Maps the element of a `next` event; a thrown error becomes an `error` event.
    public func map<Result>(_ transform: (Element) throws -> Result) -> Event<Result> {
        do {
            switch self {
            case let .next(element): return .next(try transform(element))
            case let .error(error): return .error(error)
            case .completed: return .completed
            }
        } catch let e {
            return .error(e)
        }
    }
}

/// A type that can be converted to `Event<Element>` (used by `dematerialize`).
public protocol EventConvertible {
    /// Type of element in the event.
    associatedtype Element
    /// The event.
    var event: Event<Element> { get }
}

extension Event: EventConvertible {
    /// The event itself.
    public var event: Event<Element> { self }
}
