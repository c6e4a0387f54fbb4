/// Record of a value including the virtual time it was produced on.
public struct Recorded<Value>: CustomDebugStringConvertible {
    /// Gets the virtual time the value was produced on.
    public let time: TestTime

    /// Gets the recorded value.
    public let value: Value

    /// Creates a new recorded value.
    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }

    /// A textual representation of `self`, suitable for debugging.
    public var debugDescription: String {
        "\(value) @ \(time)"
    }
}

extension Recorded: Equatable where Value: Equatable {}

extension Recorded: Sendable where Value: Sendable {}
