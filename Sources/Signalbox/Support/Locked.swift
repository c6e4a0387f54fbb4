import Foundation

/// A value behind a lock, shareable by closures and several owners.
///
/// Built on `NSLock` (pthreads) rather than `Synchronization.Mutex`: on Linux
/// ThreadSanitizer does not see `Mutex`'s futex handoff and reports false
/// races, which would hide real ones in the stress tests.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
