#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// State guarded by a pthread mutex: the one lock type of every layer (Rx, HTTP,
/// Search, Signalbox), kept here in the lowest, so Search needs no reactive core for it.
///
/// Used instead of `Synchronization.Mutex` for state shared across threads:
/// ThreadSanitizer on Linux does not see `Mutex`'s futex hand-offs and reports
/// false races under contention (a minimal `Mutex` counter reproduces it), and
/// the project's stress tests must pass under `--sanitize=thread`.
public final class Locked<State>: @unchecked Sendable {
    // `@unchecked`: the mutex is what makes the state safe to share.
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @usableFromInline var state: State

    public init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
