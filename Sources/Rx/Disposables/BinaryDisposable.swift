import Synchronization

/// Disposes two disposables together, once.
final class BinaryDisposable: Cancelable, @unchecked Sendable {
    // `@unchecked`: the two slots are read and cleared only by the caller that
    // wins the atomic exchange of `disposed`.
    private let disposed = Atomic<Bool>(false)
    private var disposable1: Disposable?
    private var disposable2: Disposable?

    init(_ disposable1: Disposable, _ disposable2: Disposable) {
        self.disposable1 = disposable1
        self.disposable2 = disposable2
        Resources.incrementTotal()
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        if disposed.exchange(true, ordering: .acquiringAndReleasing) { return }
        disposable1?.dispose()
        disposable2?.dispose()
        disposable1 = nil
        disposable2 = nil
    }

    deinit { Resources.decrementTotal() }
}
