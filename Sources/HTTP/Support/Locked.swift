#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State guarded by a pthread mutex.
///
/// Used instead of `Synchronization.Mutex` for state shared across threads:
/// ThreadSanitizer on Linux does not see `Mutex`'s futex hand-offs and reports
/// false races under contention (a minimal `Mutex` counter reproduces it; the
/// Rx module made the same change), and the project's stress tests must pass
/// under `--sanitize=thread`.
final class Locked<State>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var state: State

    init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
