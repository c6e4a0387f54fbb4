import Synchronization

/// A `Mutex` in a class, so closures and several owners can share it.
final class Locked<Value: ~Copyable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock(body)
    }
}
