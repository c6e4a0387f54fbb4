import Rx
import RxTest
import XCTest

/// map, compactMap, filter, scan, startWith, distinctUntilChanged, reduce, enumerated, materialize.
final class TransformTests: RxTestCase {
    func testMap() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start { xs.map { $0 * 10 } }
        XCTAssertEqual(res.events, [.next(210, 20), .next(220, 30), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testMapThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        let res = scheduler.start {
            xs.map { value -> Int in
                if value == 2 { throw testError }
                return value
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testMapDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(300, 2), .next(500, 3)])
        let res = scheduler.start(disposed: 400) { xs.map { $0 + 1 } }
        XCTAssertEqual(res.events, [.next(210, 2), .next(300, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
    }

    func testCompactMap() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, "1"), .next(220, "x"), .next(230, "3"), .error(300, testError)])
        let res = scheduler.start { xs.compactMap { Int($0) } }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 3), .error(300, testError)])
    }

    func testFilter() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(300)])
        let res = scheduler.start { xs.filter { $0 % 2 == 0 } }
        XCTAssertEqual(res.events, [.next(220, 2), .next(240, 4), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testFilterThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start { xs.filter { _ in throw testError } }
        XCTAssertEqual(res.events, [.error(210, testError)])
    }

    func testScan() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        XCTAssertEqual(scheduler.start { xs.scan(0, accumulator: +) }.events, [.next(210, 1), .next(220, 3), .next(230, 6), .completed(300)])
    }

    func testScanInto() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start { xs.scan(into: [Int]()) { $0.append($1) }.map { $0.count } }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(300)])
    }

    func testStartWith() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 3), .completed(300)])
        XCTAssertEqual(scheduler.start { xs.startWith(1, 2) }.events, [.next(200, 1), .next(200, 2), .next(210, 3), .completed(300)])
    }

    func testDistinctUntilChanged() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 1), .next(230, 2), .next(240, 1), .next(250, 1), .completed(300)])
        XCTAssertEqual(scheduler.start { xs.distinctUntilChanged() }.events, [.next(210, 1), .next(230, 2), .next(240, 1), .completed(300)])
    }

    func testDistinctUntilChangedByKeyAndComparer() {
        let events: [Recorded<Event<String>>] = [.next(210, "a"), .next(220, "b"), .next(230, "cc"), .next(240, "dd"), .next(250, "e"), .completed(300)]
        let expected: [Recorded<Event<String>>] = [.next(210, "a"), .next(230, "cc"), .next(250, "e"), .completed(300)]
        XCTAssertEqual(marbles(events) { $0.distinctUntilChanged { $0.count } }, expected)
        XCTAssertEqual(marbles(events) { $0.distinctUntilChanged { $0.count == $1.count } }, expected)
        XCTAssertEqual(marbles(events) { $0.distinctUntilChanged(at: \.count) }, expected)
    }

    func testReduce() {
        let events: [Recorded<Event<Int>>] = [.next(210, 1), .next(220, 2), .completed(300)]
        XCTAssertEqual(marbles(events) { $0.reduce(10, accumulator: +) }, [.next(300, 13), .completed(300)])
        XCTAssertEqual(marbles(events) { $0.reduce(0, accumulator: +, mapResult: { "\($0)" }) }, [.next(300, "3"), .completed(300)])
    }

    func testEnumerated() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, "a"), .next(220, "b"), .completed(300)])
        let res = scheduler.start { xs.enumerated().map { "\($0.index)\($0.element)" } }
        XCTAssertEqual(res.events, [.next(210, "0a"), .next(220, "1b"), .completed(300)])
    }

    func testMaterializeAndDematerialize() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(300, testError)])
        let res = scheduler.start { xs.materialize() }
        XCTAssertEqual(res.events, [.next(210, .next(1)), .next(300, .error(testError)), .completed(300)])
    }

    func testDematerialize() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(300, testError)])
        XCTAssertEqual(scheduler.start { xs.materialize().dematerialize() }.events, [.next(210, 1), .error(300, testError)])
    }

    func testIgnoreElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start { xs.ignoreElements() }
        XCTAssertEqual(res.events, [.completed(300)])
    }

    func testSingle() {
        XCTAssertEqual(freshStart { Observable.just(1).single() }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(freshStart { Observable<Int>.empty().single() }, [.error(200, RxError.noElements)])
        XCTAssertEqual(freshStart { Observable.of(1, 2).single() }, [.next(200, 1), .error(200, RxError.moreThanOneElement)])
    }

    func testIfEmpty() {
        XCTAssertEqual(freshStart { Observable<Int>.empty().ifEmpty(default: 5) }, [.next(200, 5), .completed(200)])
        XCTAssertEqual(freshStart { Observable.just(1).ifEmpty(default: 5) }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(freshStart { Observable<Int>.empty().ifEmpty(switchTo: .of(7, 8)) }, [.next(200, 7), .next(200, 8), .completed(200)])
    }

    func testToArray() {
        XCTAssertEqual(marbles([.next(210, 1), .next(220, 2), .completed(300)]) { $0.toArray().asObservable() }, [.next(300, [1, 2]), .completed(300)])
        XCTAssertEqual(marbles([.completed(300)] as [Recorded<Event<Int>>]) { $0.toArray().asObservable() }, [.next(300, []), .completed(300)])
        XCTAssertEqual(marbles([.next(210, 1), .error(300, testError)]) { $0.toArray().asObservable() }, [.error(300, testError)])
    }

    func testAsObservable() {
        let subject = PublishSubject<Int>()
        // As in RxSwift, an Observable (subjects included) returns itself.
        let observable: Observable<Int> = subject.asObservable()
        let relay = BehaviorRelay(value: 0)
        XCTAssertEqual(freshStart { relay.asObservable() }, [.next(200, 0)])
        var received: [Int] = []
        let subscription = observable.subscribe(onNext: { received.append($0) })
        subject.onNext(1)
        XCTAssertEqual(received, [1])
        subscription.dispose()
    }
}
