import Base
import Foundation
import Rx
import RxTest
import XCTest

/// Base class of the Rx tests: checks that every test leaves `Resources.total`
/// where it found it (no leaked sinks, disposables, subjects or observables).
///
/// XCTest runs tests serially, so the global counter belongs to one test at a time.
class RxTestCase: XCTestCase {
    private var startResourceCount: Int32 = 0

    override func setUp() {
        super.setUp()
        startResourceCount = Resources.total
    }

    override func tearDown() {
        // Work handed to Dispatch releases its closures just after it finishes,
        // which no API lets us await: allow such stragglers a bounded moment.
        var attempts = 0
        while Resources.total != startResourceCount && attempts < 100 {
            Thread.sleep(forTimeInterval: 0.01)
            attempts += 1
        }
        XCTAssertEqual(Resources.total, startResourceCount, "Rx resources leaked by this test")
        super.tearDown()
    }
}

/// The error tests fail sequences with.
struct TestError: Error, Equatable, CustomStringConvertible {
    var description: String { "testError" }
}

let testError = TestError()

/// Another error, to tell two failures apart.
struct TestError2: Error, Equatable, CustomStringConvertible {
    var description: String { "testError2" }
}

let testError2 = TestError2()

/// Runs `transform` over a hot observable of `events` on a fresh `TestScheduler`
/// (created 100, subscribed 200, disposed 1000) and returns what the observer recorded.
func marbles<Source, Element>(_ events: [Recorded<Event<Source>>], _ transform: @escaping (Observable<Source>) -> Observable<Element>) -> [Recorded<Event<Element>>] {
    let scheduler = TestScheduler(initialClock: 0)
    let xs = scheduler.createHotObservable(events)
    return scheduler.start { transform(xs.asObservable()) }.events
}

/// `TestScheduler.start { }` on a fresh scheduler: the default 100/200/1000 times hold.
func freshStart<Element>(_ create: @escaping () -> Observable<Element>) -> [Recorded<Event<Element>>] {
    TestScheduler(initialClock: 0).start(create: create).events
}

/// A value shared between threads in tests, guarded by an `NSLock` (pthread-based,
/// so ThreadSanitizer sees the hand-offs; it does not see `Synchronization.Mutex`'s).
final class Locked<Value>: @unchecked Sendable {
    // `@unchecked`: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
