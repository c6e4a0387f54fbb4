import Base
import HTTP

/// The response made for the last value asked about, reused while the value stays the same.
///
/// For answers that are asked for far more often than they change (`/readyz`): a request
/// compares its value with the last one under a short lock, and builds a response only when
/// it differs.
final class LastResponse<Value: Equatable & Sendable>: Sendable {
    private let last = Locked<(value: Value, response: Response)?>(nil)

    /// The response for `value`: the last one if it was made for an equal value, else `make`'s
    /// (made outside the lock, then kept).
    func response(for value: Value, make: (Value) -> Response) -> Response {
        if let last = last.withLock({ $0 }), last.value == value { return last.response }
        let response = make(value)
        last.withLock { $0 = (value, response) }
        return response
    }
}
