import Synchronization

/// Represents a disposable resource that only records whether it was disposed.
public final class BooleanDisposable: Cancelable {
    static let BooleanDisposableTrue = BooleanDisposable(isDisposed: true)

    private let disposed: Atomic<Bool>

    /// Initializes a new instance of the `BooleanDisposable` class.
    public init() {
        disposed = Atomic(false)
    }

    /// Initializes a new instance of the `BooleanDisposable` class with given value.
    public init(isDisposed: Bool) {
        disposed = Atomic(isDisposed)
    }

    /// Indicates whether the object is disposed.
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Sets the status to disposed.
    public func dispose() {
        disposed.store(true, ordering: .releasing)
    }
}
