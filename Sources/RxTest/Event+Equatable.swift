import Rx

/// Events compare equal when their elements are equal, or when both are `completed`,
/// or when both are errors with the same description (as RxTest does on Linux).
extension Event: Equatable where Element: Equatable {
    /// Compares elements with `==`, errors by description.
    public static func == (lhs: Event<Element>, rhs: Event<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.completed, .completed):
            return true
        case let (.error(e1), .error(e2)):
            return String(describing: e1) == String(describing: e2)
        case let (.next(v1), .next(v2)):
            return v1 == v2
        default:
            return false
        }
    }
}
