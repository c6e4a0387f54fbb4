import Rx
import RxTest
import Synchronization
import XCTest

/// An append-only log that several threads may write to.
final class LockedLog<Value>: @unchecked Sendable {
    // `@unchecked`: every access goes through `lock`.
    private let lock = Mutex<Void>(())
    private var storage: [Value] = []

    func append(_ value: Value) {
        lock.withLock { _ in storage.append(value) }
    }

    var values: [Value] {
        lock.withLock { _ in storage }
    }
}

