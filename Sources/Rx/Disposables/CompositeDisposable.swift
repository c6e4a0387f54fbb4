/// Represents a group of disposable resources that are disposed together.
public final class CompositeDisposable: Cancelable, @unchecked Sendable {
    // `@unchecked`: `state` is guarded by `lock` (a pthread mutex: ThreadSanitizer
    // does not see `Synchronization.Mutex` hand-offs under contention on Linux).
    /// Key used to remove a disposable from a composite disposable.
    public struct DisposeKey: Sendable {
        fileprivate let key: BagKey
    }

    private struct State {
        // nil once disposed
        var disposables: Bag<Disposable>? = Bag()
    }

    private let lock = RecursiveLock()
    private var state = State()

    /// Initializes a new instance of composite disposable.
    public init() {
        Resources.incrementTotal()
    }

    /// Initializes a new instance of composite disposable with the specified disposables.
    public init(_ disposable1: Disposable, _ disposable2: Disposable) {
        lock.performLocked {
            _ = state.disposables!.insert(disposable1)
            _ = state.disposables!.insert(disposable2)
        }
        Resources.incrementTotal()
    }

    /// Initializes a new instance of composite disposable with the specified disposables.
    public init(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable) {
        lock.performLocked {
            _ = state.disposables!.insert(disposable1)
            _ = state.disposables!.insert(disposable2)
            _ = state.disposables!.insert(disposable3)
        }
        Resources.incrementTotal()
    }

    /// Initializes a new instance of composite disposable with the specified disposables.
    public init(disposables: [Disposable]) {
        lock.performLocked {
            for disposable in disposables {
                _ = state.disposables!.insert(disposable)
            }
        }
        Resources.incrementTotal()
    }

    /// Adds a disposable to the group, or disposes it at once if the group is already disposed.
    /// - returns: Key that can be used to remove the disposable, or `nil` if the group was disposed.
    public func insert(_ disposable: Disposable) -> DisposeKey? {
        let key: BagKey? = lock.performLocked {
            state.disposables?.insert(disposable)
        }
        guard let key else {
            disposable.dispose()
            return nil
        }
        return DisposeKey(key: key)
    }

    /// Number of disposables contained in the group.
    public var count: Int {
        lock.performLocked { state.disposables?.count ?? 0 }
    }

    /// Removes and disposes the disposable identified by `disposeKey`.
    public func remove(for disposeKey: DisposeKey) {
        let removed: Disposable? = lock.performLocked {
            state.disposables?.removeKey(disposeKey.key)
        }
        removed?.dispose()
    }

    /// Whether the group was disposed.
    public var isDisposed: Bool {
        lock.performLocked { state.disposables == nil }
    }

    /// Disposes all disposables in the group and removes them from the group.
    public func dispose() {
        let disposables: Bag<Disposable>? = lock.performLocked {
            let current = state.disposables
            state.disposables = nil
            return current
        }
        if let disposables {
            for disposable in disposables.items {
                disposable.dispose()
            }
        }
    }

    deinit { Resources.decrementTotal() }
}
