import Rx
import RxTest
import XCTest

final class FactoryTests: RxTestCase {
    func testCreateForwardsEventsAndStopsAtTerminal() {
        let scheduler = TestScheduler(initialClock: 0)
        var disposedAt: [Int] = []
        let res = scheduler.start {
            Observable<Int>.create { observer in
                observer.onNext(1)
                scheduler.scheduleAt(300) { observer.onNext(2) }
                scheduler.scheduleAt(400) { observer.onCompleted() }
                scheduler.scheduleAt(500) { observer.onNext(3) }
                return Disposables.create { disposedAt.append(scheduler.clock) }
            }
        }
        XCTAssertEqual(res.events, [.next(200, 1), .next(300, 2), .completed(400)])
        XCTAssertEqual(disposedAt, [400])
    }

    func testCreateDisposedBySubscriber() {
        let scheduler = TestScheduler(initialClock: 0)
        var disposedAt: [Int] = []
        let res = scheduler.start(disposed: 350) {
            Observable<Int>.create { observer in
                scheduler.scheduleAt(300) { observer.onNext(1) }
                scheduler.scheduleAt(400) { observer.onNext(2) }
                return Disposables.create { disposedAt.append(scheduler.clock) }
            }
        }
        XCTAssertEqual(res.events, [.next(300, 1)])
        XCTAssertEqual(disposedAt, [350])
    }

    func testJust() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.just(42) }
        XCTAssertEqual(res.events, [.next(200, 42), .completed(200)])
    }

    func testJustScheduled() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.just(42, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 42), .completed(202)])
    }

    func testOfAndFrom() {
        XCTAssertEqual(freshStart { Observable.of(1, 2, 3) }, [.next(200, 1), .next(200, 2), .next(200, 3), .completed(200)])
        XCTAssertEqual(freshStart { Observable.from([4, 5]) }, [.next(200, 4), .next(200, 5), .completed(200)])
        XCTAssertEqual(freshStart { Observable.from(6 ... 7) }, [.next(200, 6), .next(200, 7), .completed(200)])
        XCTAssertEqual(freshStart { Observable.from(optional: 8 as Int?) }, [.next(200, 8), .completed(200)])
        XCTAssertEqual(freshStart { Observable.from(optional: nil as Int?) }, [.completed(200)])
    }

    func testOfOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.of(1, 2, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 1), .next(202, 2), .completed(203)])
    }

    func testFromIsTrampolinedOnCurrentThread() {
        // Like RxSwift: nested synchronous sources interleave through the trampoline.
        var received: [Int] = []
        _ = Observable.merge(Observable.of(1, 2), Observable.of(3, 4)).subscribe(onNext: { received.append($0) })
        XCTAssertEqual(received.sorted(), [1, 2, 3, 4])
        XCTAssertEqual(received, [1, 3, 2, 4])
    }

    func testLongSynchronousSequenceDoesNotGrowTheStack() {
        var count = 0
        _ = Observable.from(0 ..< 100_000).subscribe(onNext: { _ in count += 1 })
        XCTAssertEqual(count, 100_000)
    }

    func testEmptyNeverError() {
        XCTAssertEqual(freshStart { Observable<Int>.empty() }, [.completed(200)])
        XCTAssertEqual(freshStart { Observable<Int>.never() }, [])
        XCTAssertEqual(freshStart { Observable<Int>.error(testError) }, [.error(200, testError)])
    }

    func testDeferredCallsFactoryPerSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        var invoked = 0
        let deferred = Observable<Int>.deferred {
            invoked += 1
            return Observable.just(invoked)
        }
        var received: [Int] = []
        _ = deferred.subscribe(onNext: { received.append($0) })
        _ = deferred.subscribe(onNext: { received.append($0) })
        XCTAssertEqual(received, [1, 2])
        let res = scheduler.start { Observable<Int>.deferred { throw testError } }
        XCTAssertEqual(res.events, [.error(200, testError)])
    }

    func testTimerOneShot() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.timer(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(300, 0), .completed(300)])
    }

    func testTimerPeriodic() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 500) { Observable<Int>.timer(.seconds(50), period: .seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(250, 0), .next(350, 1), .next(450, 2)])
    }

    func testInterval() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 650) { Observable<Int>.interval(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(300, 0), .next(400, 1), .next(500, 2), .next(600, 3)])
    }

    func testRange() {
        XCTAssertEqual(freshStart { Observable.range(start: 5, count: 3) }, [.next(200, 5), .next(200, 6), .next(200, 7), .completed(200)])
        XCTAssertEqual(freshStart { Observable<Int8>.range(start: 126, count: 2) }, [.next(200, 126), .next(200, 127), .completed(200)])
    }

    func testRepeatElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.repeatElement(7).take(3) }
        XCTAssertEqual(res.events, [.next(200, 7), .next(200, 7), .next(200, 7), .completed(200)])
    }

    func testUsingDisposesTheResource() {
        let scheduler = TestScheduler(initialClock: 0)
        let resource = BooleanDisposable()
        var disposedAt: [Int] = []
        let res = scheduler.start {
            Observable<Int>.using({ resource }, observableFactory: { _ in
                scheduler.createColdObservable([.next(10, 1), .completed(20)]).asObservable()
                    .do(onDispose: { disposedAt.append(scheduler.clock) })
            })
        }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(220)])
        XCTAssertTrue(resource.isDisposed)
        XCTAssertEqual(disposedAt, [220])
    }
}
