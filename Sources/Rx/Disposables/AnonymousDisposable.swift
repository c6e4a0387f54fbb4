import Synchronization

/// Runs an action on first disposal; later calls to `dispose` do nothing.
final class AnonymousDisposable: Cancelable, @unchecked Sendable {
    // `@unchecked`: `disposeAction` is read and cleared only by the caller that
    // wins the atomic exchange of `disposed`.
    private let disposed = Atomic<Bool>(false)
    private var disposeAction: (() -> Void)?

    init(disposeAction: @escaping () -> Void) {
        self.disposeAction = disposeAction
        Resources.incrementTotal()
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        if disposed.exchange(true, ordering: .acquiringAndReleasing) { return }
        if let action = disposeAction {
            disposeAction = nil
            action()
        }
    }

    deinit { Resources.decrementTotal() }
}
