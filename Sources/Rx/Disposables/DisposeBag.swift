extension Disposable {
    /// Adds `self` to `bag`.
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}

/// Thread-safe bag that disposes added disposables on `deinit`.
///
/// Inserting into a bag that was already disposed disposes the item at once.
/// To dispose everything early, replace the bag with a new one.
public final class DisposeBag: @unchecked Sendable {
    // `@unchecked`: `state` is guarded by `lock` (a pthread mutex: ThreadSanitizer
    // does not see `Synchronization.Mutex` hand-offs under contention on Linux).
    private struct State {
        var disposables: [Disposable] = []
        var isDisposed = false
    }

    private let lock = RecursiveLock()
    private var state = State()

    /// Constructs a new, empty bag.
    public init() {
        Resources.incrementTotal()
    }

    /// Adds `disposable` to be disposed when the bag is released.
    public func insert(_ disposable: Disposable) {
        let disposeNow = lock.performLocked {
            if state.isDisposed { return true }
            state.disposables.append(disposable)
            return false
        }
        if disposeNow {
            disposable.dispose()
        }
    }

    /// Adds disposables to be disposed when the bag is released.
    public func insert(_ disposables: Disposable...) {
        for disposable in disposables {
            insert(disposable)
        }
    }

    private func dispose() {
        let disposables = lock.performLocked {
            let disposables = state.disposables
            state.disposables.removeAll(keepingCapacity: false)
            state.isDisposed = true
            return disposables
        }
        for disposable in disposables {
            disposable.dispose()
        }
    }

    deinit {
        dispose()
        Resources.decrementTotal()
    }
}
