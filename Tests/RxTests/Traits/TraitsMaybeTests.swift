import Rx
import RxTest
import XCTest

final class TraitsMaybeTests: RxTestCase {
    func testCreateCountsOnlyTheFirstEventAndDisposesItsResourceThen() {
        let scheduler = TestScheduler(initialClock: 0)
        var resourceDisposedAt: [Int] = []
        let res = scheduler.start {
            Maybe<Int>.create { maybe in
                scheduler.scheduleAt(230) { maybe(.completed) }
                scheduler.scheduleAt(240) { maybe(.success(1)) }
                return Disposables.create { resourceDisposedAt.append(scheduler.clock) }
            }.asObservable()
        }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(resourceDisposedAt, [230])
    }

    func testCreateSuccessAndError() {
        let success = freshStart {
            Maybe<Int>.create { maybe in
                maybe(.success(1))
                maybe(.error(testError))
                return Disposables.create()
            }.asObservable()
        }
        let failure = freshStart {
            Maybe<Int>.create { maybe in
                maybe(.error(testError))
                maybe(.completed)
                return Disposables.create()
            }.asObservable()
        }
        XCTAssertEqual(success, [.next(200, 1), .completed(200)])
        XCTAssertEqual(failure, [.error(200, testError)])
    }

    func testSubscribeHandlersAndOnDisposedOrder() {
        var log: [String] = []
        func subscribe(_ maybe: Maybe<Int>) {
            _ = maybe.subscribe(
                onSuccess: { log.append("success \($0)") },
                onError: { log.append("error \($0)") },
                onCompleted: { log.append("completed") },
                onDisposed: { log.append("disposed") })
        }
        subscribe(.just(1))
        subscribe(.empty())
        subscribe(.error(testError))
        XCTAssertEqual(log, [
            "success 1", "disposed",
            "completed", "disposed",
            "error testError", "disposed",
        ])

        log = []
        let subscription = Maybe<Int>.never().subscribe(onDisposed: { log.append("disposed") })
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(log, ["disposed"])
    }

    func testSubscribeEventForm() {
        var log: [String] = []
        let observer: (MaybeEvent<Int>) -> Void = { event in
            switch event {
            case .success(let element): log.append("success \(element)")
            case .error(let error): log.append("error \(error)")
            case .completed: log.append("completed")
            }
        }
        _ = Maybe.just(1).subscribe(observer)
        _ = Maybe<Int>.empty().subscribe(observer)
        _ = Maybe<Int>.error(testError).subscribe(observer)
        XCTAssertEqual(log, ["success 1", "completed", "error testError"])
    }

    func testIfEmptyDefaultIsASingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let empty: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let res = scheduler.start {
            let single: Single<Int> = empty.asMaybe().ifEmpty(default: 9)
            return single.asObservable()
        }
        XCTAssertEqual(res.events, [.next(250, 9), .completed(250)])
        XCTAssertEqual(freshStart { Maybe.just(1).ifEmpty(default: 9).asObservable() }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(freshStart { Maybe<Int>.error(testError).ifEmpty(default: 9).asObservable() }, [.error(200, testError)])
    }

    func testIfEmptySwitchTo() {
        let scheduler = TestScheduler(initialClock: 0)
        let empty: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let other = scheduler.createColdObservable([.next(20, 5), .completed(20)])
        let res = scheduler.start { empty.asMaybe().ifEmpty(switchTo: other.asSingle()).asObservable() }
        XCTAssertEqual(res.events, [.next(270, 5), .completed(270)])
        XCTAssertEqual(other.subscriptions, [Subscription(250, 270)])

        XCTAssertEqual(freshStart { Maybe<Int>.empty().ifEmpty(switchTo: Maybe<Int>.empty()).asObservable() }, [.completed(200)])
    }

    func testOperatorsKeepTheTrait() {
        let mapped: Maybe<String> = Maybe.just(2).map { "\($0)" }
        let filtered: Maybe<Int> = Maybe.just(2).filter { $0 > 5 }
        let compacted: Maybe<Int> = Maybe.just("3").compactMap { Int($0) }
        let chained: Maybe<Int> = Maybe.just(2).flatMap { .just($0 * 10) }
        let recovered: Maybe<Int> = Maybe<Int>.error(testError).catchAndReturn(7)
        let caught: Maybe<Int> = Maybe<Int>.error(testError).catch { _ in .empty() }
        XCTAssertEqual(freshStart { mapped.asObservable() }, [.next(200, "2"), .completed(200)])
        XCTAssertEqual(freshStart { filtered.asObservable() }, [.completed(200)])
        XCTAssertEqual(freshStart { compacted.asObservable() }, [.next(200, 3), .completed(200)])
        XCTAssertEqual(freshStart { chained.asObservable() }, [.next(200, 20), .completed(200)])
        XCTAssertEqual(freshStart { recovered.asObservable() }, [.next(200, 7), .completed(200)])
        XCTAssertEqual(freshStart { caught.asObservable() }, [.completed(200)])
        XCTAssertEqual(freshStart { Maybe.just(1).asCompletable().asObservable() }, [.completed(200)])
    }

    func testTimeoutObserveOnAndDo() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var log: [String] = []
        let res = scheduler.start {
            Maybe<Int>.never()
                .do(onSubscribe: { log.append("subscribe") }, onDispose: { log.append("dispose") })
                .timeout(.seconds(30), scheduler: scheduler)
                .observe(on: scheduler)
                .asObservable()
        }
        XCTAssertEqual(res.events, [.error(230, RxError.timeout)])
        XCTAssertEqual(log, ["subscribe", "dispose"])
    }

    func testZipOfMaybes() {
        XCTAssertEqual(freshStart { Maybe.zip(Maybe.just(1), Maybe.just(2)) { $0 + $1 }.asObservable() },
                       [.next(200, 3), .completed(200)])
        XCTAssertEqual(freshStart { Maybe.zip(Maybe.just(1), Maybe<Int>.empty()) { $0 + $1 }.asObservable() },
                       [.completed(200)])
    }
}
