#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A reentrant lock (pthread recursive mutex).
///
/// Sinks forward events while holding their lock, as RxSwift does, so that events
/// to one observer never overlap; an observer may synchronously call back into the
/// same sink (dispose it, push another event into a subject), which needs reentrancy.
/// `Synchronization.Mutex` is not reentrant, so it is used only where no callback
/// runs under the lock.
final class RecursiveLock: @unchecked Sendable {
    // `@unchecked`: the mutex is the synchronization primitive itself.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    func lock() { pthread_mutex_lock(mutex) }

    @inline(__always)
    func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    func performLocked<T>(_ action: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try action()
    }
}

/// A type that owns a `RecursiveLock` and serializes `on` through it.
protocol SynchronizedOnType: AnyObject, ObserverType {
    var lock: RecursiveLock { get }
    func synchronized_on(_ event: Event<Element>)
}

extension SynchronizedOnType {
    @inline(__always)
    func synchronizedOn(_ event: Event<Element>) {
        lock.lock()
        synchronized_on(event)
        lock.unlock()
    }
}
