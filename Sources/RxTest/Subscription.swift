/// Records information about subscriptions to and unsubscriptions from observable sequences.
public struct Subscription: Equatable, Hashable, Sendable, CustomDebugStringConvertible {
    /// Subscription virtual time.
    public let subscribe: Int
    /// Unsubscription virtual time (`Int.max` while still subscribed).
    public let unsubscribe: Int

    /// Creates a new subscription object with the given virtual subscription time.
    public init(_ subscribe: TestTime) {
        self.subscribe = subscribe
        unsubscribe = Int.max
    }

    /// Creates a new subscription object with the given virtual subscription and unsubscription time.
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    /// A textual representation of `self`, suitable for debugging.
    public var debugDescription: String {
        let infiniteText = "Infinity"
        return "(\(subscribe): \(unsubscribe == Int.max ? infiniteText : String(unsubscribe)))"
    }
}
