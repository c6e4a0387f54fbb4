import Rx
import RxTest
import XCTest

/// catch, catchAndReturn, retry.
final class ErrorHandlingTests: RxTestCase {
    func testCatchSwitchesToHandlerSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(230, testError)])
        let ys = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        var caught: [String] = []
        let res = scheduler.start {
            xs.catch { error in
                caught.append("\(error)")
                return ys.asObservable()
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2), .completed(250)])
        XCTAssertEqual(caught, ["testError"])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(230, 250)])
    }

    func testStaticCatchTriesTheSourcesInTurn() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let ys = scheduler.createColdObservable([.next(10, 2), .error(20, testError2)])
        let zs = scheduler.createColdObservable([.next(10, 3), .completed(20)])
        let res = scheduler.start { Observable.catch([xs.asObservable(), ys.asObservable(), zs.asObservable()]) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .next(250, 3), .completed(260)])
        XCTAssertEqual(zs.subscriptions, [Subscription(240, 260)])
    }

    func testStaticCatchFailsWithTheLastErrorAndCompletesWhenEmpty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let ys = scheduler.createColdObservable([.error(10, testError2)] as [Recorded<Event<Int>>])
        let res = scheduler.start { Observable.catch([xs.asObservable(), ys.asObservable()]) }
        XCTAssertEqual(res.events, [.next(210, 1), .error(230, testError2)])
        XCTAssertEqual(freshStart { Observable<Int>.catch([Observable<Int>]()) }, [.completed(200)])
    }

    func testCatchHandlerThrowing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(230, testError)])
        let res = scheduler.start { xs.catch { _ in throw testError2 } }
        XCTAssertEqual(res.events, [.next(210, 1), .error(230, testError2)])
    }

    func testCatchAndReturnEmitsFallbackAndCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(230, testError), .next(240, 3)])
        let res = scheduler.start { xs.catchAndReturn(-1) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, -1), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testCatchAndReturnPassesCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(230)])
        XCTAssertEqual(scheduler.start { xs.catchAndReturn(-1) }.events, [.next(210, 1), .completed(230)])
    }

    func testRetryResubscribesUntilSuccess() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let res = scheduler.start(disposed: 265) { xs.retry() }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 1), .next(250, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(220, 240), Subscription(240, 260), Subscription(260, 265)])
    }

    func testRetryCountIncludesFirstAttempt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let res = scheduler.start { xs.retry(3) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 1), .next(250, 1), .error(260, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(220, 240), Subscription(240, 260)])
    }

    func testRetryCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        XCTAssertEqual(scheduler.start { xs.retry(3) }.events, [.next(210, 1), .completed(220)])
    }

    func testRetrySynchronousErrorsDoNotRecurse() {
        var attempts = 0
        let source = Observable<Int>.deferred {
            attempts += 1
            return .error(testError)
        }
        var result: [Event<Int>] = []
        _ = source.retry(10_000).subscribe { result.append($0) }
        XCTAssertEqual(attempts, 10_000)
        XCTAssertEqual(result, [.error(testError)])
    }
}
