import Rx
import RxTest
import XCTest

/// flatMap, flatMapLatest, concatMap, concat, merge, combineLatest, zip, withLatestFrom.
final class CombiningTests: RxTestCase {
    func testFlatMapMergesInnerSequences() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start {
            xs.flatMap { value in
                scheduler.createColdObservable([.next(5, value * 10), .next(15, value * 10 + 1), .completed(20)])
            }
        }
        XCTAssertEqual(res.events, [.next(215, 10), .next(225, 11), .next(225, 20), .next(235, 21), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testFlatMapInnerErrorStopsAll() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(400)])
        let inner1 = scheduler.createHotObservable([.next(230, 10), .next(260, 11)])
        let inner2 = scheduler.createHotObservable([.error(240, testError)] as [Recorded<Event<Int>>])
        let res = scheduler.start { xs.flatMap { $0 == 1 ? inner1 : inner2 } }
        XCTAssertEqual(res.events, [.next(230, 10), .error(240, testError)])
        XCTAssertEqual(inner1.subscriptions, [Subscription(210, 240)])
        XCTAssertEqual(inner2.subscriptions, [Subscription(220, 240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }

    func testFlatMapSelectorThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(400)])
        let res = scheduler.start { xs.flatMap { _ -> Observable<Int> in throw testError } }
        XCTAssertEqual(res.events, [.error(210, testError)])
    }

    func testFlatMapLatestDisposesThePreviousInnerSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createHotObservable([.next(220, 1), .next(250, 2), .next(280, 3), .completed(600)])
        let ys2 = scheduler.createHotObservable([.next(270, 10), .next(290, 11), .completed(310)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .next(260, ys2), .completed(300)])
        let res = scheduler.start { xs.flatMapLatest { $0 } }
        XCTAssertEqual(res.events, [.next(220, 1), .next(250, 2), .next(270, 10), .next(290, 11), .completed(310)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 260)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(260, 310)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testFlatMapLatestOuterCompletionWaitsForInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let res = scheduler.start {
            xs.flatMapLatest { _ in scheduler.createColdObservable([.next(50, 5), .completed(100)]) }
        }
        XCTAssertEqual(res.events, [.next(260, 5), .completed(310)])
    }

    func testFlatMapLatestInnerErrorAndOuterError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(230, testError)])
        let ys = scheduler.createHotObservable([.next(220, 5), .next(240, 6)])
        let res = scheduler.start { xs.flatMapLatest { _ in ys } }
        XCTAssertEqual(res.events, [.next(220, 5), .error(230, testError)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 230)])
    }

    func testSwitchLatest() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(220, 1), .next(270, 2)])
        let b = scheduler.createHotObservable([.next(280, 3), .completed(290)])
        let xs = scheduler.createHotObservable([.next(210, a.asObservable()), .next(260, b.asObservable()), .completed(265)])
        XCTAssertEqual(scheduler.start { xs.switchLatest() }.events, [.next(220, 1), .next(280, 3), .completed(290)])
    }

    func testConcatMapRunsInnerSequencesOneAfterAnother() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start {
            xs.concatMap { value in
                scheduler.createColdObservable([.next(10, value * 10), .next(20, value * 10 + 1), .completed(30)])
            }
        }
        XCTAssertEqual(res.events, [.next(220, 10), .next(230, 11), .next(250, 20), .next(260, 21), .completed(270)])
    }

    func testConcatInstanceAndStatic() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let b = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        XCTAssertEqual(scheduler.start { a.asObservable().concat(b) }.events, [.next(210, 1), .next(230, 2), .completed(240)])
        XCTAssertEqual(a.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(b.subscriptions, [Subscription(220, 240)])
        XCTAssertEqual(scheduler.start(created: 1000, subscribed: 1100, disposed: 2000) { Observable.concat(a.asObservable(), b.asObservable(), Observable.just(3)) }.events,
                       [.next(1110, 1), .next(1130, 2), .next(1140, 3), .completed(1140)])
        XCTAssertEqual(scheduler.start(created: 2000, subscribed: 2100, disposed: 3000) { Observable.of(a.asObservable(), b.asObservable()).concat() }.events,
                       [.next(2110, 1), .next(2130, 2), .completed(2140)])
    }

    func testConcatErrorStops() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let b = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        XCTAssertEqual(scheduler.start { Observable.concat([a.asObservable(), b.asObservable()]) }.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(b.subscriptions, [])
    }

    func testConcatManySynchronousSources() {
        var count = 0
        _ = Observable.concat((0 ..< 50_000).map { Observable.just($0) }).subscribe(onNext: { _ in count += 1 })
        XCTAssertEqual(count, 50_000)
    }

    func testMergeStatic() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .next(230, 3), .completed(250)])
        let b = scheduler.createHotObservable([.next(220, 2), .completed(300)])
        XCTAssertEqual(scheduler.start { Observable.merge(a.asObservable(), b.asObservable()) }.events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        XCTAssertEqual(a.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(b.subscriptions, [Subscription(200, 300)])
    }

    func testMergeInstanceAndError() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .next(260, 4)])
        let b = scheduler.createHotObservable([.next(220, 2), .error(240, testError)])
        let xs = scheduler.createHotObservable([.next(205, a.asObservable()), .next(215, b.asObservable()), .completed(230)])
        XCTAssertEqual(scheduler.start { xs.merge() }.events, [.next(210, 1), .next(220, 2), .error(240, testError)])
        XCTAssertEqual(a.subscriptions, [Subscription(205, 240)])
    }

    func testMergeMaxConcurrent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(211, 2), .next(212, 3), .completed(213)])
        let res = scheduler.start {
            xs.map { value in scheduler.createColdObservable([.next(10, value), .completed(10)]).asObservable() }.merge(maxConcurrent: 2)
        }
        XCTAssertEqual(res.events, [.next(220, 1), .next(221, 2), .next(230, 3), .completed(230)])
    }

    func testCombineLatest2() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(300)])
        let b = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(260)])
        let res = scheduler.start { Observable.combineLatest(a, b) { "\($0)\($1)" } }
        XCTAssertEqual(res.events, [.next(220, "1a"), .next(230, "2a"), .next(240, "2b"), .completed(300)])
    }

    func testCombineLatest2Tuples() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(300)])
        let b = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(260)])
        let tuples = scheduler.start { Observable.combineLatest(a, b).map { "\($0.0)\($0.1)" } }
        XCTAssertEqual(tuples.events, [.next(220, "1a"), .next(230, "2a"), .next(240, "2b"), .completed(300)])
    }

    func testCombineLatestCompletesWhenOneCompletesEmpty() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let b = scheduler.createHotObservable([.completed(220)] as [Recorded<Event<Int>>])
        XCTAssertEqual(scheduler.start { Observable.combineLatest(a, b) { $0 + $1 } }.events, [.completed(300)])
    }

    func testCombineLatestError() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .next(250, 9)])
        let b = scheduler.createHotObservable([.next(220, 2), .error(230, testError)])
        XCTAssertEqual(scheduler.start { Observable.combineLatest(a, b) { $0 + $1 } }.events, [.next(220, 3), .error(230, testError)])
        XCTAssertEqual(a.subscriptions, [Subscription(200, 230)])
    }

    func testCombineLatest3And4AndCollection() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let b = scheduler.createHotObservable([.next(220, 2), .completed(300)])
        let c = scheduler.createHotObservable([.next(230, 3), .next(240, 4), .completed(300)])
        XCTAssertEqual(scheduler.start { Observable.combineLatest(a, b, c) { $0 + $1 + $2 } }.events, [.next(230, 6), .next(240, 7), .completed(300)])
        let scheduler2 = TestScheduler(initialClock: 0)
        let a2 = scheduler2.createHotObservable([.next(210, 1), .completed(300)])
        let b2 = scheduler2.createHotObservable([.next(220, 2), .completed(300)])
        let c2 = scheduler2.createHotObservable([.next(230, 3), .next(240, 4), .completed(300)])
        let d2 = scheduler2.createHotObservable([.next(250, 5), .completed(310)])
        XCTAssertEqual(scheduler2.start { Observable.combineLatest(a2, b2, c2, d2) { $0 + $1 + $2 + $3 } }.events, [.next(250, 12), .completed(310)])
        let scheduler3 = TestScheduler(initialClock: 0)
        let xs = [
            scheduler3.createHotObservable([.next(210, 1), .next(230, 3), .completed(300)]),
            scheduler3.createHotObservable([.next(220, 2), .completed(250)]),
        ]
        XCTAssertEqual(scheduler3.start { Observable.combineLatest(xs) { $0.reduce(0, +) } }.events, [.next(220, 3), .next(230, 5), .completed(300)])
        XCTAssertEqual(TestScheduler(initialClock: 0).start { Observable<Int>.combineLatest([Observable<Int>]()).map { $0.count } }.events, [.completed(200)])
    }

    func testZip2() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        let b = scheduler.createHotObservable([.next(215, "a"), .next(240, "b"), .completed(260)])
        XCTAssertEqual(scheduler.start { Observable.zip(a, b) { "\($0)\($1)" } }.events, [.next(215, "1a"), .next(240, "2b"), .completed(300)])
    }

    func testZipError() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .next(250, 2)])
        let b = scheduler.createHotObservable([.next(220, 10), .error(230, testError)])
        XCTAssertEqual(scheduler.start { Observable.zip(a, b) { $0 + $1 } }.events, [.next(220, 11), .error(230, testError)])
        XCTAssertEqual(a.subscriptions, [Subscription(200, 230)])
    }

    func testZip3And4AndCollection() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, 1), .next(211, 2), .completed(300)])
        let b = scheduler.createHotObservable([.next(220, 10), .next(221, 20), .completed(300)])
        let c = scheduler.createHotObservable([.next(230, 100), .completed(300)])
        XCTAssertEqual(scheduler.start { Observable.zip(a, b, c) { $0 + $1 + $2 } }.events, [.next(230, 111), .completed(300)])
        let scheduler2 = TestScheduler(initialClock: 0)
        let xs = (0 ..< 4).map { i in scheduler2.createHotObservable([.next(210 + i, i), .completed(300)]) }
        XCTAssertEqual(scheduler2.start { Observable.zip(xs[0], xs[1], xs[2], xs[3]) { [$0, $1, $2, $3] } }.events, [.next(213, [0, 1, 2, 3]), .completed(300)])
        let scheduler3 = TestScheduler(initialClock: 0)
        let ys = (0 ..< 3).map { i in scheduler3.createHotObservable([.next(210 + i, i), .next(220 + i, i * 2), .completed(300)]) }
        XCTAssertEqual(scheduler3.start { Observable.zip(ys) }.events, [.next(212, [0, 1, 2]), .next(222, [0, 2, 4]), .completed(300)])
    }

    func testWithLatestFrom() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .next(250, 3), .completed(300)])
        let ys = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(245)])
        XCTAssertEqual(scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }.events, [.next(230, "2a"), .next(250, "3b"), .completed(300)])
    }

    func testWithLatestFromWithoutSelector() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .next(250, 3), .completed(300)])
        let ys = scheduler.createHotObservable([.next(220, "a"), .next(240, "b"), .completed(245)])
        XCTAssertEqual(scheduler.start { xs.withLatestFrom(ys) }.events, [.next(230, "a"), .next(250, "b"), .completed(300)])
    }
}

/// combineLatest/zip of 5–8 sources, concat of an infinite sequence.
final class ArityAndLazyConcatTests: RxTestCase {
    func testCombineLatestOfEightSourcesBothForms() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = (1 ... 8).map { i in scheduler.createHotObservable([.next(200 + i * 10, i), .completed(300)]) }
        let res = scheduler.start {
            Observable.combineLatest(xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], xs[6], xs[7]) { $0 + $1 + $2 + $3 + $4 + $5 + $6 + $7 }
        }
        XCTAssertEqual(res.events, [.next(280, 36), .completed(300)])
        let scheduler2 = TestScheduler(initialClock: 0)
        let ys = (1 ... 5).map { i in scheduler2.createHotObservable([.next(200 + i * 10, i), .completed(300)]) }
        let tuples = scheduler2.start {
            Observable.combineLatest(ys[0], ys[1], ys[2], ys[3], ys[4]).map { "\($0)\($1)\($2)\($3)\($4)" }
        }
        XCTAssertEqual(tuples.events, [.next(250, "12345"), .completed(300)])
    }

    func testZipOfSixSourcesBothForms() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = (1 ... 6).map { i in scheduler.createHotObservable([.next(200 + i * 10, i), .next(300, i * 10), .completed(400)]) }
        let res = scheduler.start {
            Observable.zip(xs[0], xs[1], xs[2], xs[3], xs[4], xs[5]).map { $0 + $1 + $2 + $3 + $4 + $5 }
        }
        XCTAssertEqual(res.events, [.next(260, 21), .next(300, 210), .completed(400)])
        let one = Single.just(1)
        let zipped: Single<Int> = Single.zip(one, one, one, one, one, one, one) { (a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int) -> Int in
            a + b + c + d + e + f + g
        }
        let singles = freshStart { zipped.asObservable() }
        XCTAssertEqual(singles, [.next(200, 7), .completed(200)])
    }

    func testConcatOfAnInfiniteSequenceIteratesLazily() {
        let naturals = sequence(first: 1) { $0 + 1 }.lazy.map { Observable.just($0) }
        let res = freshStart { Observable.concat(naturals).take(3) }
        XCTAssertEqual(res, [.next(200, 1), .next(200, 2), .next(200, 3), .completed(200)])
    }
}
