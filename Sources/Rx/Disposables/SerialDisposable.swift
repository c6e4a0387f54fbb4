/// A disposable whose underlying disposable can be replaced; replacing it disposes
/// the previous one. Once disposed, any newly assigned disposable is disposed at once.
public final class SerialDisposable: Cancelable, @unchecked Sendable {
    // `@unchecked`: `state` is guarded by `lock` (a pthread mutex: ThreadSanitizer
    // does not see `Synchronization.Mutex` hand-offs under contention on Linux).
    private struct State {
        var current: Disposable?
        var isDisposed = false
    }

    private let lock = RecursiveLock()
    private var state = State()

    /// Initializes a new instance of the `SerialDisposable`.
    public init() {
        Resources.incrementTotal()
    }

    /// Whether this disposable was disposed.
    public var isDisposed: Bool {
        lock.performLocked { state.isDisposed }
    }

    /// Gets or sets the underlying disposable.
    public var disposable: Disposable {
        get {
            lock.performLocked { state.current ?? Disposables.create() }
        }
        set(newDisposable) {
            let toDispose: Disposable? = lock.performLocked {
                if state.isDisposed { return newDisposable }
                let previous = state.current
                state.current = newDisposable
                return previous
            }
            toDispose?.dispose()
        }
    }

    /// Disposes the underlying disposable as well as all future replacements.
    public func dispose() {
        let toDispose: Disposable? = lock.performLocked {
            if state.isDisposed { return nil }
            state.isDisposed = true
            let current = state.current
            state.current = nil
            return current
        }
        toDispose?.dispose()
    }

    deinit { Resources.decrementTotal() }
}
