/// Why a `filter`, `sort` or `facets` parameter cannot be used: where (`position`, a 0-based
/// offset in the parameter's text, counted in characters — Unicode code points, as highlight
/// ranges are) and what was expected there. `description` is fit for a 400 problem body:
/// `at 12: expected a value after '>'`.
public struct FilterError: Error, Sendable, Hashable, CustomStringConvertible {
    public var position: Int
    public var message: String

    public init(position: Int, _ message: String) {
        self.position = position
        self.message = message
    }

    public var description: String { "at \(position): \(message)" }
}
