import Rx
import RxTest
import XCTest

final class TraitsCompletableTests: RxTestCase {
    func testCreateCountsOnlyTheFirstEventAndDisposesItsResourceThen() {
        let scheduler = TestScheduler(initialClock: 0)
        var resourceDisposedAt: [Int] = []
        let res = scheduler.start {
            Completable.create { completable in
                scheduler.scheduleAt(220) { completable(.error(testError)) }
                scheduler.scheduleAt(230) { completable(.completed) }
                return Disposables.create { resourceDisposedAt.append(scheduler.clock) }
            }.asObservable()
        }
        XCTAssertEqual(res.events, [.error(220, testError)])
        XCTAssertEqual(resourceDisposedAt, [220])
    }

    func testSubscribeHandlersAndOnDisposedOrder() {
        var log: [String] = []
        func subscribe(_ completable: Completable) {
            _ = completable.subscribe(
                onCompleted: { log.append("completed") },
                onError: { log.append("error \($0)") },
                onDisposed: { log.append("disposed") })
        }
        subscribe(.empty())
        subscribe(.error(testError))
        XCTAssertEqual(log, ["completed", "disposed", "error testError", "disposed"])

        log = []
        Completable.never().subscribe(onDisposed: { log.append("disposed") }).dispose()
        XCTAssertEqual(log, ["disposed"])
    }

    func testSubscribeEventForm() {
        var log: [String] = []
        let observer: (CompletableEvent) -> Void = { event in
            switch event {
            case .completed: log.append("completed")
            case .error(let error): log.append("error \(error)")
            }
        }
        _ = Completable.empty().subscribe(observer)
        _ = Completable.error(testError).subscribe(observer)
        XCTAssertEqual(log, ["completed", "error testError"])
    }

    func testAndThenSingleSubscribesAfterCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let first: TestableObservable<Never> = scheduler.createColdObservable([.completed(10)])
        let second = scheduler.createColdObservable([.next(20, 1), .completed(20)])
        let res = scheduler.start {
            let single: Single<Int> = first.asCompletable().andThen(second.asSingle())
            return single.asObservable()
        }
        XCTAssertEqual(res.events, [.next(230, 1), .completed(230)])
        XCTAssertEqual(first.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(second.subscriptions, [Subscription(210, 230)])
    }

    func testAndThenSkipsTheSecondAfterAnError() {
        let scheduler = TestScheduler(initialClock: 0)
        let first: TestableObservable<Never> = scheduler.createColdObservable([.error(10, testError)])
        let second = scheduler.createColdObservable([.next(20, 1), .completed(20)])
        let res = scheduler.start { first.asCompletable().andThen(second.asSingle()).asObservable() }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(second.subscriptions, [])
    }

    func testAndThenMaybeCompletableAndObservable() {
        let maybe: Maybe<Int> = Completable.empty().andThen(Maybe.just(1))
        let completable: Completable = Completable.empty().andThen(Completable.error(testError))
        let observable: Observable<Int> = Completable.empty().andThen(Observable.of(1, 2))
        XCTAssertEqual(freshStart { maybe.asObservable() }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(freshStart { completable.asObservable() }, [.error(200, testError)])
        XCTAssertEqual(freshStart { observable }, [.next(200, 1), .next(200, 2), .completed(200)])
    }

    func testAndThenDisposalReachesTheSecond() {
        let scheduler = TestScheduler(initialClock: 0)
        let first: TestableObservable<Never> = scheduler.createColdObservable([.completed(10)])
        let second: TestableObservable<Int> = scheduler.createColdObservable([.next(100, 1)])
        let res = scheduler.start(disposed: 250) { first.asCompletable().andThen(second.asObservable()) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(second.subscriptions, [Subscription(210, 250)])
    }

    func testZipCompletesWhenAllComplete() {
        let scheduler = TestScheduler(initialClock: 0)
        let a: TestableObservable<Never> = scheduler.createColdObservable([.completed(10)])
        let b: TestableObservable<Never> = scheduler.createColdObservable([.completed(30)])
        let res = scheduler.start { Completable.zip(a.asCompletable(), b.asCompletable()).asObservable() }
        XCTAssertEqual(res.events, [.completed(230)])
    }

    func testDoCatchRetry() {
        var log: [String] = []
        var attempts = 0
        let completable = Completable.deferred {
            attempts += 1
            return attempts < 3 ? .error(testError) : .empty()
        }
        .do(onError: { _ in log.append("error") }, onCompleted: { log.append("completed") })
        .retry(3)
        _ = completable.subscribe()
        XCTAssertEqual(log, ["error", "error", "completed"])
        XCTAssertEqual(freshStart { Completable.error(testError).catch { _ in .empty() }.asObservable() },
                       [.completed(200)])
    }
}
