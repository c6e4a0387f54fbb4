import Rx
import RxTest
import XCTest

/// take, skip, take(until:), take(while:), skip(while:), take(for:), skip(for:).
final class FilteringTests: RxTestCase {
    func testTakeCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        let res = scheduler.start { xs.take(2) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testTakeZeroCompletesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        XCTAssertEqual(scheduler.start { xs.take(0) }.events, [.completed(200)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testSkipForDurationDropsEarlyElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.skip(for: .seconds(15), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testSkipForDurationLongerThanTheSourceGivesOnlyCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.skip(for: .seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(230)])
    }

    func testSkipForDurationPassesAnEarlyError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = scheduler.start { xs.skip(for: .seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testTakeForDuration() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .next(260, 3), .completed(300)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testSkip() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        XCTAssertEqual(scheduler.start { xs.skip(2) }.events, [.next(230, 3), .completed(300)])
    }

    func testTakeUntilOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3), .completed(300)])
        let stop = scheduler.createHotObservable([.next(230, ()), .completed(250)])
        let res = scheduler.start { xs.take(until: stop) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(stop.subscriptions, [Subscription(200, 230)])
    }

    func testTakeUntilOtherCompletingDoesNotStop() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .completed(300)])
        let stop = scheduler.createHotObservable([.completed(250)] as [Recorded<Event<Int>>])
        let res = scheduler.start { xs.take(until: stop) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(260, 2), .completed(300)])
        XCTAssertEqual(stop.subscriptions, [Subscription(200, 250)])
    }

    func testTakeUntilOtherError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .completed(300)])
        let stop = scheduler.createHotObservable([.error(250, testError)] as [Recorded<Event<Int>>])
        XCTAssertEqual(scheduler.start { xs.take(until: stop) }.events, [.next(210, 1), .error(250, testError)])
    }

    func testTakeUntilPredicateAndWhile() {
        let events: [Recorded<Event<Int>>] = [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(300)]
        XCTAssertEqual(marbles(events) { $0.take(until: { $0 == 3 }) }, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(marbles(events) { $0.take(until: { $0 == 3 }, behavior: .inclusive) }, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(230)])
        XCTAssertEqual(marbles(events) { $0.take(while: { $0 < 3 }) }, [.next(210, 1), .next(220, 2), .completed(230)])
    }

    func testSkipWhile() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 5), .next(230, 2), .completed(300)])
        XCTAssertEqual(scheduler.start { xs.skip(while: { $0 < 3 }) }.events, [.next(220, 5), .next(230, 2), .completed(300)])
    }
}
