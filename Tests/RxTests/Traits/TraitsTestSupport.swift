import Foundation

/// An append-only log that several threads may write to.
final class LockedLog<Value>: @unchecked Sendable {
    // `@unchecked`: every access goes through `lock` (an `NSLock`, which
    // ThreadSanitizer understands, unlike a contended `Mutex`).
    private let lock = NSLock()
    private var storage: [Value] = []

    func append(_ value: Value) {
        lock.withLock { storage.append(value) }
    }

    var values: [Value] {
        lock.withLock { storage }
    }
}

