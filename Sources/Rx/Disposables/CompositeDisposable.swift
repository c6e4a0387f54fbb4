import Synchronization

/// Represents a group of disposable resources that are disposed together.
public final class CompositeDisposable: Cancelable {
    /// Key used to remove a disposable from a composite disposable.
    public struct DisposeKey: Sendable {
        fileprivate let key: BagKey
    }

    private struct State {
        // nil once disposed
        var disposables: Bag<Disposable>? = Bag()
    }

    private let state = Mutex(State())

    /// Initializes a new instance of composite disposable.
    public init() {
        Resources.incrementTotal()
    }

    /// Initializes a new instance of composite disposable with the specified disposables.
    public init(_ disposable1: Disposable, _ disposable2: Disposable) {
        state.withLock { state in
            _ = state.disposables!.insert(disposable1)
            _ = state.disposables!.insert(disposable2)
        }
        Resources.incrementTotal()
    }

    /// Initializes a new instance of composite disposable with the specified disposables.
    public init(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable) {
        state.withLock { state in
            _ = state.disposables!.insert(disposable1)
            _ = state.disposables!.insert(disposable2)
            _ = state.disposables!.insert(disposable3)
        }
        Resources.incrementTotal()
    }

    /// Initializes a new instance of composite disposable with the specified disposables.
    public init(disposables: [Disposable]) {
        state.withLock { state in
            for disposable in disposables {
                _ = state.disposables!.insert(disposable)
            }
        }
        Resources.incrementTotal()
    }

    /// Adds a disposable to the group, or disposes it at once if the group is already disposed.
    /// - returns: Key that can be used to remove the disposable, or `nil` if the group was disposed.
    public func insert(_ disposable: Disposable) -> DisposeKey? {
        let key: BagKey? = state.withLock { state in
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
        state.withLock { $0.disposables?.count ?? 0 }
    }

    /// Removes and disposes the disposable identified by `disposeKey`.
    public func remove(for disposeKey: DisposeKey) {
        let removed: Disposable? = state.withLock { state in
            state.disposables?.removeKey(disposeKey.key)
        }
        removed?.dispose()
    }

    /// Whether the group was disposed.
    public var isDisposed: Bool {
        state.withLock { $0.disposables == nil }
    }

    /// Disposes all disposables in the group and removes them from the group.
    public func dispose() {
        let disposables: Bag<Disposable>? = state.withLock { state in
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
