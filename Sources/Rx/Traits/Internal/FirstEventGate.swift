import Synchronization

/// Lets exactly one caller through, even when several threads race to emit: the
/// trait `create` callbacks use it so that only the first event of a subscription counts.
final class FirstEventGate: Sendable {
    private let passed = Atomic<Bool>(false)

    /// `true` for the first call only.
    func pass() -> Bool {
        !passed.exchange(true, ordering: .acquiringAndReleasing)
    }
}
