import Rx
import RxTest
import XCTest

/// `asSingle()`, `asMaybe()`, `asCompletable()` and `first()` on an `Observable`.
final class TraitsAsPrimitiveSequenceTests: RxTestCase {
    func testAsSingleWithNoElementFailsWithNoElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 0), .completed(250)])
        let res = scheduler.start { xs.asSingle().asObservable() }
        XCTAssertEqual(res.events, [.error(250, RxError.noElements)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testAsSingleWithOneElementSucceedsAtCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0), .next(210, 1), .completed(250)])
        let res = scheduler.start { xs.asSingle().asObservable() }
        XCTAssertEqual(res.events, [.next(250, 1), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testAsSingleWithTwoElementsFailsAtTheSecondAndDisposesTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(250)])
        let res = scheduler.start { xs.asSingle().asObservable() }
        XCTAssertEqual(res.events, [.error(220, RxError.moreThanOneElement)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAsSingleForwardsTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(240, testError)])
        let res = scheduler.start { xs.asSingle().asObservable() }
        XCTAssertEqual(res.events, [.error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }

    func testAsSingleOfASynchronousSequence() {
        var results: [String] = []
        _ = Observable.of(1, 2, 3).asSingle().subscribe(
            onSuccess: { results.append("success \($0)") },
            onFailure: { results.append("failure \($0)") })
        _ = Observable.just(4).asSingle().subscribe(onSuccess: { results.append("success \($0)") })
        XCTAssertEqual(results, ["failure \(RxError.moreThanOneElement)", "success 4"])
    }

    func testAsMaybeWithNoneOneAndTwoElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let none: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let one = scheduler.createHotObservable([.next(210, 1), .completed(260)])
        let two = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(270)])
        let noneObserver = scheduler.createObserver(Int.self)
        let oneObserver = scheduler.createObserver(Int.self)
        let twoObserver = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) {
            _ = none.asMaybe().asObservable().subscribe(noneObserver)
            _ = one.asMaybe().asObservable().subscribe(oneObserver)
            _ = two.asMaybe().asObservable().subscribe(twoObserver)
        }
        scheduler.start()

        XCTAssertEqual(noneObserver.events, [.completed(250)])
        XCTAssertEqual(oneObserver.events, [.next(260, 1), .completed(260)])
        XCTAssertEqual(twoObserver.events, [.error(230, RxError.moreThanOneElement)])
        XCTAssertEqual(two.subscriptions, [Subscription(200, 230)])
    }

    func testAsCompletableIgnoresElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(250)])
        let res = scheduler.start { xs.asCompletable().asObservable() }
        XCTAssertEqual(res.events, [.completed(250)])

        let failing = scheduler.createHotObservable([.next(1010, 1), .error(1020, testError)])
        let observer = scheduler.createObserver(Never.self)
        _ = failing.asCompletable().asObservable().subscribe(observer)
        scheduler.advanceTo(1100)
        XCTAssertEqual(observer.events, [.error(1020, testError)])
    }

    func testFirstTakesOneElementOrNil() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(250)])
        let res = scheduler.start { xs.first().asObservable() }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(210)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])

        XCTAssertEqual(freshStart { Observable<Int>.empty().first().asObservable() }, [.next(200, nil), .completed(200)])
    }
}
