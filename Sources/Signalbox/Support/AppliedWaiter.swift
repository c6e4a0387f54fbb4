import Base

/// A write waiting for its change to be served (``ChangeApplier/apply(_:waitingAtMost:)``, or a
/// schema change's new index: ``ServedCollection/served(_:within:)``); resumed once, by
/// whichever comes first: the serving, or the timer that bounds the wait.
final class AppliedWaiter: Sendable {
    private let continuation: Locked<CheckedContinuation<Bool, Never>?>

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = Locked(continuation)
    }

    /// Whether nothing has finished it yet.
    var isWaiting: Bool { continuation.withLock { $0 != nil } }

    func finish(_ served: Bool) {
        continuation.withLock { taken in defer { taken = nil }; return taken }?.resume(returning: served)
    }
}
