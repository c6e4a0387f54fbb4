import Foundation
import Rx
import RxTest
import XCTest

/// takeLast, skip(until:), sample, element(at:), amb, generate, delaySubscription,
/// decode, retry(when:), flatMapFirst, withUnretained, groupBy, buffer, window.
final class NewOperatorTests: RxTestCase {
    func testTakeLast() {
        let res = marbles([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)]) { $0.takeLast(2) }
        XCTAssertEqual(res, [.next(300, 2), .next(300, 3), .completed(300)])
        let failed = marbles([.next(210, 1), .error(300, testError)]) { $0.takeLast(2) }
        XCTAssertEqual(failed, [.error(300, testError)])
    }

    func testSkipUntil() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .next(250, 3), .completed(300)])
        let trigger = scheduler.createHotObservable([.next(240, "go"), .completed(260)])
        let res = scheduler.start { xs.skip(until: trigger) }
        XCTAssertEqual(res.events, [.next(250, 3), .completed(300)])
        XCTAssertEqual(trigger.subscriptions, [Subscription(200, 240)])
    }

    func testSkipUntilNeverCompletesWhenTheTriggerCompletesEmpty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let trigger = scheduler.createHotObservable([.completed(220)] as [Recorded<Event<Int>>])
        let res = scheduler.start { xs.skip(until: trigger) }
        XCTAssertEqual(res.events, [])
    }

    func testSampleCompletesAtTheFirstTickAfterTheSourceCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(260, 3), .completed(270)])
        let ticks = scheduler.createHotObservable([.next(230, "a"), .next(250, "b"), .next(300, "c"), .next(400, "d")])
        let res = scheduler.start { xs.sample(ticks) }
        XCTAssertEqual(res.events, [.next(230, 2), .next(300, 3), .completed(300)])
    }

    func testSampleWithDefaultValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let ticks = scheduler.createHotObservable([.next(230, "a"), .next(250, "b")])
        let res = scheduler.start { xs.sample(ticks, defaultValue: 0) }
        XCTAssertEqual(res.events, [.next(230, 1), .next(250, 0)])
    }

    func testElementAt() {
        XCTAssertEqual(marbles([.next(210, 1), .next(220, 2), .next(230, 3)]) { $0.element(at: 1) }, [.next(220, 2), .completed(220)])
        XCTAssertEqual(marbles([.next(210, 1), .completed(220)]) { $0.element(at: 1) }, [.error(220, RxError.argumentOutOfRange)])
    }

    func testAmbFollowsTheFirstToEmit() {
        let scheduler = TestScheduler(initialClock: 0)
        let left = scheduler.createHotObservable([.next(230, 1), .completed(300)])
        let right = scheduler.createHotObservable([.next(220, 2), .next(240, 3), .completed(250)])
        let res = scheduler.start { left.amb(right) }
        XCTAssertEqual(res.events, [.next(220, 2), .next(240, 3), .completed(250)])
        XCTAssertEqual(left.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(right.subscriptions, [Subscription(200, 250)])
        let scheduler2 = TestScheduler(initialClock: 0)
        let a = scheduler2.createHotObservable([.next(230, 1)])
        let b = scheduler2.createHotObservable([.error(220, testError)] as [Recorded<Event<Int>>])
        XCTAssertEqual(scheduler2.start { Observable.amb([a.asObservable(), b.asObservable()]) }.events, [.error(220, testError)])
    }

    func testGenerate() {
        let res = freshStart { Observable.generate(initialState: 1, condition: { $0 < 20 }, iterate: { $0 * 3 }) }
        XCTAssertEqual(res, [.next(200, 1), .next(200, 3), .next(200, 9), .completed(200)])
        let scheduler = TestScheduler(initialClock: 0)
        let timed = scheduler.start { Observable.generate(initialState: 0, condition: { $0 < 3 }, scheduler: scheduler, iterate: { $0 + 1 }) }
        XCTAssertEqual(timed.events, [.next(201, 0), .next(202, 1), .next(203, 2), .completed(204)])
    }

    func testDelaySubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let res = scheduler.start { xs.delaySubscription(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(240, 1), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(230, 250)])
    }

    func testDecode() throws {
        struct Item: Decodable, Equatable { let id: Int }
        let data = Data(#"{"id": 7}"#.utf8)
        let res = freshStart { Observable.just(data).decode(type: Item.self, decoder: JSONDecoder()).map { $0.id } }
        XCTAssertEqual(res, [.next(200, 7), .completed(200)])
        let bad = freshStart { Observable.just(Data("x".utf8)).decode(type: Item.self, decoder: JSONDecoder()).map { $0.id } }
        XCTAssertEqual(bad.count, 1)
        XCTAssertNotNil(bad.first?.value.error)
    }

    func testRetryWhenResubscribesOnTriggerAndCompletesWithIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let res = scheduler.start {
            xs.retry { (errors: Observable<Swift.Error>) in errors.enumerated().flatMap { attempt, _ -> Observable<Int> in
                attempt < 2 ? Observable.timer(.seconds(5), scheduler: scheduler) : Observable.empty()
            } }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(235, 1), .next(260, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(225, 245), Subscription(250, 270)])
    }

    func testRetryWhenTriggerCompletesTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let res = scheduler.start { xs.retry { (errors: Observable<TestError>) in errors.take(1).map { _ in 0 } } }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 1), .completed(240)])
    }

    func testFlatMapFirstIgnoresElementsWhileAnInnerRuns() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(250, 3), .completed(300)])
        let res = scheduler.start {
            xs.flatMapFirst { value in scheduler.createColdObservable([.next(5, value * 10), .completed(20)]) }
        }
        XCTAssertEqual(res.events, [.next(215, 10), .next(255, 30), .completed(300)])
    }

    func testGroupBy() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(250)])
        let res = scheduler.start {
            xs.groupBy { $0 % 2 }.flatMap { group in group.map { "\(group.key):\($0)" } }
        }
        XCTAssertEqual(res.events, [.next(210, "1:1"), .next(220, "0:2"), .next(230, "1:3"), .next(240, "0:4"), .completed(250)])
    }

    func testBufferByTimeAndCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(205, 1), .next(210, 2), .next(215, 3), .next(280, 4), .completed(290)])
        let res = scheduler.start { xs.buffer(timeSpan: .seconds(50), count: 3, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(215, [1, 2, 3]), .next(265, []), .next(290, [4]), .completed(290)])
    }

    func testWindowByTimeAndCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(205, 1), .next(210, 2), .next(240, 3), .completed(300)])
        let res = scheduler.start {
            xs.window(timeSpan: .seconds(30), count: 2, scheduler: scheduler).enumerated().flatMap { index, window in
                window.map { "\(index):\($0)" }
            }
        }
        XCTAssertEqual(res.events, [.next(205, "0:1"), .next(210, "0:2"), .next(240, "1:3"), .completed(300)])
    }

    func testDebugPassesEventsThrough() {
        XCTAssertEqual(freshStart { Observable.of(1, 2).debug("test") }, [.next(200, 1), .next(200, 2), .completed(200)])
    }
}
