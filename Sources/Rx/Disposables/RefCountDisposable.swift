import Synchronization

/// Disposes its underlying disposable once it has been disposed itself and every
/// disposable handed out by `retain()` has been disposed too.
public final class RefCountDisposable: Cancelable, @unchecked Sendable {
    // `@unchecked`: state is guarded by `lock`.
    private let lock = RecursiveLock()
    private var disposable: Disposable?
    private var primaryDisposed = false
    private var count = 0

    /// Whether the underlying disposable has been disposed.
    public var isDisposed: Bool {
        lock.performLocked { disposable == nil }
    }

    /// Wraps `disposable`.
    public init(disposable: Disposable) {
        self.disposable = disposable
        Resources.incrementTotal()
    }

    deinit { Resources.decrementTotal() }

    /// Holds the underlying disposable until the returned one is disposed.
    public func retain() -> Disposable {
        lock.performLocked {
            if disposable == nil { return Disposables.create() }
            count += 1
            return RefCountInnerDisposable(self)
        }
    }

    /// Disposes the underlying disposable once no retained disposable is left.
    public func dispose() {
        let toDispose: Disposable? = lock.performLocked {
            guard let disposable, !primaryDisposed else { return nil }
            primaryDisposed = true
            if count == 0 {
                self.disposable = nil
                return disposable
            }
            return nil
        }
        toDispose?.dispose()
    }

    fileprivate func release() {
        let toDispose: Disposable? = lock.performLocked {
            guard let disposable else { return nil }
            count -= 1
            precondition(count >= 0, "RefCountDisposable released more often than retained")
            if count == 0 && primaryDisposed {
                self.disposable = nil
                return disposable
            }
            return nil
        }
        toDispose?.dispose()
    }
}

/// A retained share of a `RefCountDisposable`; releases it once.
final private class RefCountInnerDisposable: Disposable, @unchecked Sendable {
    private let parent: RefCountDisposable
    private let disposed = Atomic<Bool>(false)

    init(_ parent: RefCountDisposable) {
        self.parent = parent
    }

    func dispose() {
        if !disposed.exchange(true, ordering: .acquiringAndReleasing) {
            parent.release()
        }
    }
}
