import Rx
import RxTest
import XCTest

/// throttle, debounce, timeout, delay, observe(on:), subscribe(on:).
final class TimeTests: RxTestCase {
    // MARK: throttle

    func testThrottleLatestTrueSendsNewestAtEndOfWindow() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .next(260, 4), .next(290, 5), .completed(400)])
        let res = scheduler.start { xs.throttle(.seconds(30), latest: true, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 3), .next(270, 4), .next(300, 5), .completed(400)])
    }

    func testThrottleLatestFalseDropsTheRestOfTheWindow() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .next(260, 4), .next(290, 5), .completed(400)])
        let res = scheduler.start { xs.throttle(.seconds(30), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(260, 4), .next(290, 5), .completed(400)])
    }

    func testThrottleCompletionWaitsForPendingLatest() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(225)])
        let res = scheduler.start { xs.throttle(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 225)])
    }

    func testThrottleErrorDropsPending() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .error(225, testError)])
        let res = scheduler.start { xs.throttle(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .error(225, testError)])
    }

    // MARK: debounce

    func testDebounceSendsOnlyAfterQuietPeriod() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(250, 3), .next(300, 4), .completed(310)])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(240, 2), .next(270, 3), .next(310, 4), .completed(310)])
    }

    func testDebounceErrorDropsPending() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(250, 2), .error(260, testError)])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(230, 1), .error(260, testError)])
    }

    // MARK: timeout

    func testTimeoutFailsWithRxErrorTimeout() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(225, 2), .next(260, 3)])
        let res = scheduler.start { xs.timeout(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(225, 2), .error(245, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 245)])
    }

    func testTimeoutFirstElementCountsFromSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(230, 1)])
        XCTAssertEqual(scheduler.start { xs.timeout(.seconds(20), scheduler: scheduler) }.events, [.error(220, RxError.timeout)])
    }

    func testTimeoutSwitchesToOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 3)])
        let ys = scheduler.createColdObservable([.next(5, 100), .completed(10)])
        let res = scheduler.start { xs.timeout(.seconds(20), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(235, 100), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(230, 240)])
    }

    func testTimeoutNotFiringWhenSourceCompletesInTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        XCTAssertEqual(scheduler.start { xs.timeout(.seconds(20), scheduler: scheduler) }.events, [.next(210, 1), .completed(220)])
    }

    // MARK: delay

    func testDelayShiftsElementsAndCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.delay(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(260, 1), .next(270, 2), .completed(280)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testDelayDoesNotDelayErrors() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        XCTAssertEqual(scheduler.start { xs.delay(.seconds(50), scheduler: scheduler) }.events, [.error(220, testError)])
    }

    // MARK: observe(on:) / subscribe(on:)

    func testObserveOnDeliversOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(scheduler.start { xs.observe(on: scheduler) }.events, [.next(211, 1), .next(221, 2), .completed(231)])
    }

    func testObserveOnError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        XCTAssertEqual(scheduler.start { xs.observe(on: scheduler) }.events, [.next(211, 1), .error(221, testError)])
    }

    func testSubscribeOnSubscribesAndDisposesOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start(disposed: 250) { xs.subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(220, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(201, 251)])
    }
}
