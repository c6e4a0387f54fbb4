import Dispatch
import Foundation
import Rx
import Synchronization
import XCTest

/// Real threads and real serial queues. Run under `--sanitize=thread` as well.
///
/// The tests' own locks are `NSLock`s: ThreadSanitizer on Linux does not see the
/// contended path of `Synchronization.Mutex` and reports false races through it.
final class TraitsConcurrencyTests: RxTestCase {
    private static let producers = 4
    private static let elementsPerProducer = 500
    private static let subscribers = 4
    private static let subscriptionsPerSubscriber = 200
    private static let liveSubscriptions = 8

    /// Many threads feed a subject while many threads subscribe to and dispose its
    /// `Driver`; no subscriber ever sees two deliveries overlap.
    func testDriverFedAndSubscribedFromManyThreads() {
        let overlaps = Atomic<Int>(0)
        let delivered = Atomic<Int>(0)
        let anchorDelivered = Atomic<Int>(0)
        onSharingQueues { flush in
            let subject = PublishSubject<Int>()
            let feed = NSLock()  // a subject takes one event at a time (the grammar)
            let driver = subject.asDriver(onErrorJustReturn: -1)
            // Keeps one connection for the whole run, and sees the end marker.
            let marker = -2
            let markerSeen = DispatchSemaphore(value: 0)
            let anchor = driver.drive(onNext: {
                anchorDelivered.add(1, ordering: .relaxed)
                if $0 == marker { markerSeen.signal() }
            })

            DispatchQueue.concurrentPerform(iterations: Self.producers + Self.subscribers) { worker in
                if worker < Self.producers {
                    for element in 0..<Self.elementsPerProducer {
                        feed.withLock { subject.onNext(element) }
                    }
                    return
                }
                var live: [Disposable] = []
                for _ in 0..<Self.subscriptionsPerSubscriber {
                    let guardian = OverlapGuard()
                    live.append(driver.drive(onNext: { _ in
                        if !guardian.enter() { overlaps.add(1, ordering: .relaxed) }
                        delivered.add(1, ordering: .relaxed)
                        guardian.leave()
                    }))
                    if live.count > Self.liveSubscriptions { live.removeFirst().dispose() }
                }
                live.forEach { $0.dispose() }
            }
            // Deliveries are FIFO: once the marker arrives, all earlier ones have run.
            feed.withLock { subject.onNext(marker) }
            markerSeen.wait()
            anchor.dispose()
            flush()
        }
        XCTAssertEqual(overlaps.load(ordering: .relaxed), 0)
        // Short-lived subscribers may all be gone before a delivery on a loaded machine
        // (`delivered` can be 0), but the anchor, there throughout, gets every element.
        XCTAssertEqual(anchorDelivered.load(ordering: .relaxed), Self.producers * Self.elementsPerProducer + 1)
    }

    /// Subscribers that stay for the whole run each get every element, in order, serially.
    func testEverySubscriberGetsEveryElementInOrder() {
        let overlaps = Atomic<Int>(0)
        let total = Self.producers * Self.elementsPerProducer
        onSharingQueues { flush in
            let relay = PublishRelay<Int>()
            let feed = NSLock()
            nonisolated(unsafe) var next = 0  // guarded by `feed`
            let signal = relay.asSignal()
            let received = (0..<Self.subscribers).map { _ in LockedLog<Int>() }
            let lastSeen = DispatchSemaphore(value: 0)
            let subscriptions = received.map { log in
                let guardian = OverlapGuard()
                return signal.emit(onNext: { value in
                    if !guardian.enter() { overlaps.add(1, ordering: .relaxed) }
                    log.append(value)
                    guardian.leave()
                    if value == total - 1 { lastSeen.signal() }
                })
            }
            DispatchQueue.concurrentPerform(iterations: Self.producers) { _ in
                for _ in 0..<Self.elementsPerProducer {
                    feed.withLock {
                        relay.accept(next)
                        next += 1
                    }
                }
            }
            for _ in received { lastSeen.wait() }
            subscriptions.forEach { $0.dispose() }
            flush()
            for log in received {
                XCTAssertEqual(log.values, Array(0..<total))
            }
        }
        XCTAssertEqual(overlaps.load(ordering: .relaxed), 0)
    }

    /// The default sharing scheduler does not funnel shared sequences through one thread:
    /// a delivery of one Signal waits for a delivery of another, which could never
    /// happen if both shared a serial queue (the wait would time out).
    func testDefaultSchedulerDeliversTwoSharedSequencesInParallel() {
        let first = PublishRelay<Int>()
        let second = PublishRelay<Int>()
        let secondDelivered = DispatchSemaphore(value: 0)
        let bothDone = DispatchSemaphore(value: 0)
        let waitedFor = Atomic<Bool>(false)

        let subscriptions = [
            first.asSignal().emit(onNext: { _ in
                waitedFor.store(secondDelivered.wait(timeout: .now() + 10) == .success, ordering: .relaxed)
                bothDone.signal()
            }),
            second.asSignal().emit(onNext: { _ in
                secondDelivered.signal()
                bothDone.signal()
            }),
        ]
        first.accept(1)
        second.accept(2)
        bothDone.wait()
        bothDone.wait()
        subscriptions.forEach { $0.dispose() }
        XCTAssertTrue(waitedFor.load(ordering: .relaxed))
    }

    /// `Single.create` callbacks racing on many threads: one event per subscription.
    func testSingleCreateRacingCallbacks() {
        let successes = Atomic<Int>(0)
        let disposals = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            let single = Single<Int>.create { single in
                DispatchQueue.concurrentPerform(iterations: 3) { single(.success($0)) }
                return Disposables.create()
            }
            _ = single.subscribe(
                onSuccess: { _ in successes.add(1, ordering: .relaxed) },
                onDisposed: { disposals.add(1, ordering: .relaxed) })
        }
        XCTAssertEqual(successes.load(ordering: .relaxed), 200)
        XCTAssertEqual(disposals.load(ordering: .relaxed), 200)
    }

    /// Runs `body` with the default kind of sharing scheduler (a new serial queue per
    /// shared sequence), except that the queues target `pool`, a serial queue of the test.
    /// Once the last delivery has started, `flush` waits for it to return, so the
    /// resource count is settled before `tearDown` checks it.
    private func onSharingQueues(_ body: (_ flush: () -> Void) -> Void) {
        let pool = DispatchQueue(label: "traits.stress.pool")
        SharingScheduler.mock(makeScheduler: {
            SerialDispatchQueueScheduler(queue: pool, internalSerialQueueName: "traits.stress.sharing")
        }) {
            body { pool.sync {} }
        }
    }
}

/// Detects two deliveries to one subscriber overlapping in time.
private final class OverlapGuard: Sendable {
    private let busy = Atomic<Bool>(false)

    /// `false` if another delivery is in progress.
    func enter() -> Bool {
        !busy.exchange(true, ordering: .acquiringAndReleasing)
    }

    func leave() {
        busy.store(false, ordering: .releasing)
    }
}
