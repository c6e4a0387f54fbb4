import Synchronization

/// Represents a disposable resource whose disposal invocation is scheduled on the specified scheduler.
public final class ScheduledDisposable: Cancelable, @unchecked Sendable {
    // `@unchecked`: `disposable` is cleared only by the scheduled action, which runs once.
    /// Scheduler the disposal runs on.
    public let scheduler: ImmediateSchedulerType

    private let disposed = Atomic<Bool>(false)
    private var disposable: Disposable?

    /// Initializes a new instance of the `ScheduledDisposable` that uses a `scheduler` on which to dispose the `disposable`.
    public init(scheduler: ImmediateSchedulerType, disposable: Disposable) {
        self.scheduler = scheduler
        self.disposable = disposable
        Resources.incrementTotal()
    }

    /// Whether this disposable was disposed.
    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    /// Disposes the wrapped disposable on the provided scheduler.
    public func dispose() {
        _ = scheduler.schedule(self) { scheduledDisposable in
            scheduledDisposable.disposeInner()
            return Disposables.create()
        }
    }

    private func disposeInner() {
        if disposed.exchange(true, ordering: .acquiringAndReleasing) { return }
        let inner = disposable
        disposable = nil
        inner?.dispose()
    }

    deinit { Resources.decrementTotal() }
}
