import Base
import Dispatch
import Foundation
import Rx
import XCTest

/// Subjects and share deliver without holding their lock, and keep concurrent `on` serialized.
final class DeliveryOutsideLockTests: RxTestCase {
    func testObserverWaitingForAnotherThreadReadingTheRelayValueDoesNotDeadlock() {
        let relay = BehaviorRelay(value: 0)
        let readOnOtherThread = expectation(description: "read")
        let subscription = relay.skip(1).subscribe(onNext: { _ in
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = relay.value
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "deadlock: the relay's lock was held during delivery")
            readOnOtherThread.fulfill()
        })
        relay.accept(1)
        wait(for: [readOnOtherThread], timeout: 10)
        subscription.dispose()
    }

    func testObserverWaitingForAnotherThreadFeedingTheSameSubjectDoesNotDeadlock() {
        let subject = PublishSubject<Int>()
        let received = LockedLog<Int>()
        let shared = subject.share()
        let subscription = shared.subscribe(onNext: { value in
            received.append(value)
            guard value == 1 else { return }
            let fed = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                subject.onNext(2)
                fed.signal()
            }
            XCTAssertEqual(fed.wait(timeout: .now() + 5), .success, "deadlock: the subject's lock was held during delivery")
        })
        subject.onNext(1)
        // The other thread's element was queued and delivered by this thread after the first.
        XCTAssertEqual(received.values, [1, 2])
        subscription.dispose()
    }

    func testConcurrentOnCallsStaySerializedAndComplete() {
        let subject = PublishSubject<Int>()
        let shared = subject.share(replay: 1)
        let inside = Locked(0)
        let overlaps = Locked(0)
        let count = Locked(0)
        let subscriptions = (0 ..< 4).map { _ in
            shared.subscribe(onNext: { _ in
                if inside.withLock({ value -> Int in value += 1; return value }) > 1 { overlaps.withLock { $0 += 1 } }
                count.withLock { $0 += 1 }
                inside.withLock { $0 -= 1 }
            })
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0 ..< 500 { subject.onNext(thread * 1000 + i) }
        }
        XCTAssertEqual(overlaps.withLock { $0 }, 0)
        XCTAssertEqual(count.withLock { $0 }, 4 * 8 * 500)
        subscriptions.forEach { $0.dispose() }
    }

    func testNestedOnFromAnObserverIsDeliveredAtOnceAsInRxSwift() {
        let subject = PublishSubject<Int>()
        var log: [String] = []
        let first = subject.subscribe(onNext: { value in
            log.append("a\(value)")
            if value == 1 { subject.onNext(2) }
        })
        let second = subject.subscribe(onNext: { log.append("b\($0)") })
        subject.onNext(1)
        XCTAssertEqual(log, ["a1", "a2", "b2", "b1"])
        first.dispose()
        second.dispose()
    }
}
