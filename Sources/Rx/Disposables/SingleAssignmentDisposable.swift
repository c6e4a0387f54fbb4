import Synchronization

/// A disposable that can be assigned its underlying disposable only once.
/// If it is disposed before the assignment, the assigned disposable is disposed at once.
public final class SingleAssignmentDisposable: Cancelable, @unchecked Sendable {
    // `@unchecked`: `current` is written once before the `disposableSet` bit is
    // published and read only by the side that observes both bits via the atomic.
    private enum Flag {
        static let disposed = 1
        static let disposableSet = 2
    }

    private let state = Atomic<Int>(0)
    private var current: Disposable?

    /// Initializes a new instance of the `SingleAssignmentDisposable`.
    public init() {
        Resources.incrementTotal()
    }

    /// Whether this disposable was disposed.
    public var isDisposed: Bool {
        state.load(ordering: .acquiring) & Flag.disposed != 0
    }

    /// Sets the underlying disposable. Calling it twice is a programmer error.
    public func setDisposable(_ disposable: Disposable) {
        current = disposable
        let previous = state.bitwiseOr(Flag.disposableSet, ordering: .acquiringAndReleasing).oldValue
        if previous & Flag.disposableSet != 0 {
            rxFatalError("oldState.disposable != nil")
        }
        if previous & Flag.disposed != 0 {
            disposable.dispose()
            current = nil
        }
    }

    /// Disposes the underlying disposable.
    public func dispose() {
        let previous = state.bitwiseOr(Flag.disposed, ordering: .acquiringAndReleasing).oldValue
        if previous & Flag.disposed != 0 { return }
        if previous & Flag.disposableSet != 0 {
            let disposable = current
            current = nil
            disposable?.dispose()
        }
    }

    deinit { Resources.decrementTotal() }
}
