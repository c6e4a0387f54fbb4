import Rx
import RxTest
import XCTest

final class InfallibleTests: RxTestCase {
    func testCreateForwardsNextAndCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Infallible<Int>.create { observer in
                scheduler.scheduleAt(210) { observer(.next(1)) }
                scheduler.scheduleAt(220) { observer(.next(2)) }
                scheduler.scheduleAt(230) { observer(.completed) }
                scheduler.scheduleAt(240) { observer(.next(3)) }
                return Disposables.create()
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
    }

    func testAsInfallibleOnErrorJustReturn() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = scheduler.start { xs.asInfallible(onErrorJustReturn: 9) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 9), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAsInfallibleOnErrorFallbackTo() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = scheduler.start { xs.asInfallible(onErrorFallbackTo: .of(7, 8)) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 7), .next(220, 8), .completed(220)])
    }

    func testAsInfallibleOnErrorRecover() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.error(220, testError)] as [Recorded<Event<String>>])
        let res = scheduler.start { xs.asInfallible(onErrorRecover: { .just("\($0)") }) }
        XCTAssertEqual(res.events, [.next(220, "testError"), .completed(220)])
    }

    func testOperatorsKeepTheTrait() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 2), .next(240, 3), .completed(250)])
        let res = scheduler.start {
            let infallible: Infallible<Int> = xs.asInfallible(onErrorJustReturn: 0)
                .map { $0 * 10 }
                .distinctUntilChanged()
                .filter { $0 != 10 }
                .scan(0) { $0 + $1 }
            return infallible
        }
        XCTAssertEqual(res.events, [.next(220, 20), .next(240, 50), .completed(250)])
    }

    func testFactories() {
        XCTAssertEqual(freshStart { Infallible.just(1).asObservable() }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(freshStart { Infallible.of(1, 2).asObservable() }, [.next(200, 1), .next(200, 2), .completed(200)])
        XCTAssertEqual(freshStart { Infallible.from([3]).asObservable() }, [.next(200, 3), .completed(200)])
        XCTAssertEqual(freshStart { Infallible<Int>.empty().asObservable() }, [.completed(200)])
        XCTAssertEqual(freshStart { Infallible<Int>.never().asObservable() }, [])
        XCTAssertEqual(freshStart { Infallible.deferred { .just(4) }.asObservable() }, [.next(200, 4), .completed(200)])
    }

    func testCombineLatestAndZipAndWithLatestFrom() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(260)])
        let ys = scheduler.createHotObservable([.next(220, 10), .next(240, 20), .completed(250)])
        let combined = scheduler.start {
            Infallible.combineLatest(xs.asInfallible(onErrorJustReturn: 0), ys.asInfallible(onErrorJustReturn: 0)) { $0 + $1 }
        }
        XCTAssertEqual(combined.events, [.next(220, 11), .next(230, 12), .next(240, 22), .completed(260)])

        let scheduler2 = TestScheduler(initialClock: 0)
        let a = scheduler2.createHotObservable([.next(210, 1), .next(230, 2), .completed(260)])
        let b = scheduler2.createHotObservable([.next(220, 10), .next(240, 20), .completed(250)])
        let zipped = scheduler2.start {
            Infallible.zip(a.asInfallible(onErrorJustReturn: 0), b.asInfallible(onErrorJustReturn: 0)).map { $0 + $1 }
        }
        XCTAssertEqual(zipped.events, [.next(220, 11), .next(240, 22), .completed(260)])

        let scheduler3 = TestScheduler(initialClock: 0)
        let c = scheduler3.createHotObservable([.next(210, 1), .next(230, 2), .completed(260)])
        let d = scheduler3.createHotObservable([.next(220, 10), .next(240, 20), .completed(250)])
        let latest = scheduler3.start {
            c.asInfallible(onErrorJustReturn: 0).withLatestFrom(d.asInfallible(onErrorJustReturn: 0))
        }
        XCTAssertEqual(latest.events, [.next(230, 10), .completed(260)])
    }

    func testSubscribeHandlers() {
        var log: [String] = []
        _ = Infallible.of(1, 2).subscribe(
            onNext: { log.append("next \($0)") },
            onCompleted: { log.append("completed") },
            onDisposed: { log.append("disposed") }
        )
        XCTAssertEqual(log, ["next 1", "next 2", "completed", "disposed"])

        var events: [String] = []
        _ = Infallible.just(1).subscribe { event in
            switch event {
            case .next(let value): events.append("next \(value)")
            case .completed: events.append("completed")
            }
        }
        XCTAssertEqual(events, ["next 1", "completed"])
    }

    func testFlatMapFirstAndWithUnretained() {
        final class Owner {}
        var owner: Owner? = Owner()
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        scheduler.scheduleAt(225) { owner = nil }
        let res = scheduler.start {
            xs.asInfallible(onErrorJustReturn: 0).withUnretained(owner!).map { $0.1 }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
    }
}
