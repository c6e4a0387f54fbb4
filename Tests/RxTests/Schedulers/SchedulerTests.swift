import Base
import Dispatch
import Foundation
import Rx
import RxTest
import Synchronization
import XCTest

final class SchedulerTests: RxTestCase {
    func testCurrentThreadSchedulerTrampolinesNestedWork() {
        var log: [String] = []
        let scheduler = CurrentThreadScheduler.instance
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
        _ = scheduler.schedule(()) { _ in
            log.append("outer start")
            XCTAssertFalse(CurrentThreadScheduler.isScheduleRequired)
            _ = scheduler.schedule(()) { _ in
                log.append("inner")
                return Disposables.create()
            }
            log.append("outer end")
            return Disposables.create()
        }
        XCTAssertEqual(log, ["outer start", "outer end", "inner"])
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
    }

    func testCurrentThreadSchedulerSkipsDisposedItems() {
        var log: [String] = []
        let scheduler = CurrentThreadScheduler.instance
        _ = scheduler.schedule(()) { _ in
            let inner = scheduler.schedule(()) { _ in
                log.append("inner")
                return Disposables.create()
            }
            inner.dispose()
            return Disposables.create()
        }
        XCTAssertEqual(log, [])
    }

    func testSerialDispatchQueueSchedulerRunsInOrder() {
        let scheduler = SerialDispatchQueueScheduler(qos: .default, internalSerialQueueName: "rx.test.serial")
        let done = expectation(description: "all scheduled work ran")
        let log = Locked<[Int]>([])
        for i in 0 ..< 100 {
            _ = scheduler.schedule(i) { value in
                log.withLock { $0.append(value) }
                if value == 99 { done.fulfill() }
                return Disposables.create()
            }
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.withLock { $0 }, Array(0 ..< 100))
    }

    func testSerialDispatchQueueSchedulerScheduleRelativeAndCancel() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "rx.test.relative")
        let fired = expectation(description: "relative work ran")
        let cancelledRan = Atomic<Bool>(false)
        let cancelled = scheduler.scheduleRelative((), dueTime: .milliseconds(5)) { _ in
            cancelledRan.store(true, ordering: .relaxed)
            return Disposables.create()
        }
        cancelled.dispose()
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(20)) { _ in
            fired.fulfill()
            return Disposables.create()
        }
        wait(for: [fired], timeout: 5)
        XCTAssertFalse(cancelledRan.load(ordering: .relaxed))
    }

    func testDispatchSchedulersDriveIntervalAndObserveOn() {
        let serial = SerialDispatchQueueScheduler(qos: .userInitiated)
        let concurrent = ConcurrentDispatchQueueScheduler(qos: .default)
        let done = expectation(description: "completed")
        let values = Locked<[Int]>([])
        let subscription = Observable<Int>.interval(.milliseconds(2), scheduler: concurrent)
            .take(5)
            .observe(on: serial)
            .subscribe(onNext: { value in values.withLock { $0.append(value) } }, onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(values.withLock { $0 }, [0, 1, 2, 3, 4])
    }

    func testConcurrentSchedulerObserveOnKeepsOrder() {
        let scheduler = ConcurrentDispatchQueueScheduler(queue: DispatchQueue.global())
        let done = expectation(description: "completed")
        let values = Locked<[Int]>([])
        let subscription = Observable.from(0 ..< 1000)
            .observe(on: scheduler)
            .subscribe(onNext: { value in values.withLock { $0.append(value) } }, onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(values.withLock { $0 }, Array(0 ..< 1000))
    }

    func testVirtualTimeSchedulerAdvanceToAndSleep() {
        let scheduler = TestScheduler(initialClock: 0)
        var log: [Int] = []
        scheduler.scheduleAt(10) { log.append(scheduler.clock) }
        scheduler.scheduleAt(20) { log.append(scheduler.clock) }
        scheduler.scheduleAt(30) { log.append(scheduler.clock) }
        scheduler.advanceTo(20)
        XCTAssertEqual(log, [10, 20])
        XCTAssertEqual(scheduler.clock, 20)
        scheduler.sleep(5)
        XCTAssertEqual(scheduler.clock, 25)
        scheduler.start()
        XCTAssertEqual(log, [10, 20, 30])
    }

    func testVirtualTimeSchedulerStop() {
        let scheduler = TestScheduler(initialClock: 0)
        var log: [Int] = []
        scheduler.scheduleAt(10) { log.append(10); scheduler.stop() }
        scheduler.scheduleAt(20) { log.append(20) }
        scheduler.start()
        XCTAssertEqual(log, [10])
        scheduler.start()
        XCTAssertEqual(log, [10, 20])
    }

    func testTestSchedulerSimulatesProcessingDelay() {
        let delayed = TestScheduler(initialClock: 0)
        let immediate = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var times: [Int] = []
        delayed.scheduleAt(100) { _ = delayed.schedule(()) { _ in times.append(delayed.clock); return Disposables.create() } }
        immediate.scheduleAt(100) { _ = immediate.schedule(()) { _ in times.append(immediate.clock); return Disposables.create() } }
        delayed.start()
        immediate.start()
        XCTAssertEqual(times, [101, 100])
    }

    func testTestSchedulerResolution() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        let res = scheduler.start { Observable<Int>.timer(.milliseconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(250, 0), .completed(250)])
    }
}
