import Rx
import RxTest
import XCTest

final class TraitsSingleTests: RxTestCase {
    // MARK: create

    func testCreateCountsOnlyTheFirstEventAndDisposesItsResourceThen() {
        let scheduler = TestScheduler(initialClock: 0)
        var resourceDisposedAt: [Int] = []

        let res = scheduler.start {
            Single<Int>.create { single in
                scheduler.scheduleAt(250) { single(.success(1)) }
                scheduler.scheduleAt(260) { single(.success(2)) }
                scheduler.scheduleAt(270) { single(.failure(testError)) }
                return Disposables.create { resourceDisposedAt.append(scheduler.clock) }
            }.asObservable()
        }

        XCTAssertEqual(res.events, [.next(250, 1), .completed(250)])
        XCTAssertEqual(resourceDisposedAt, [250])
    }

    func testCreateFailureDisposesItsResourceAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        var resourceDisposedAt: [Int] = []

        let res = scheduler.start {
            Single<Int>.create { single in
                scheduler.scheduleAt(240) { single(.failure(testError)) }
                scheduler.scheduleAt(250) { single(.success(1)) }
                return Disposables.create { resourceDisposedAt.append(scheduler.clock) }
            }.asObservable()
        }

        XCTAssertEqual(res.events, [.error(240, testError)])
        XCTAssertEqual(resourceDisposedAt, [240])
    }

    func testCreateDisposesItsResourceWhenTheSubscriberLeavesFirst() {
        let scheduler = TestScheduler(initialClock: 0)
        var resourceDisposedAt: [Int] = []

        let res = scheduler.start(disposed: 300) {
            Single<Int>.create { single in
                scheduler.scheduleAt(400) { single(.success(1)) }
                return Disposables.create { resourceDisposedAt.append(scheduler.clock) }
            }.asObservable()
        }

        XCTAssertEqual(res.events, [])
        XCTAssertEqual(resourceDisposedAt, [300])
    }

    func testCreateSynchronousSuccessIgnoresLaterEvents() {
        var log: [String] = []
        let single = Single<Int>.create { single in
            single(.success(1))
            single(.success(2))
            single(.failure(testError))
            return Disposables.create { log.append("resource disposed") }
        }
        _ = single.subscribe(
            onSuccess: { log.append("success \($0)") },
            onFailure: { log.append("failure \($0)") },
            onDisposed: { log.append("disposed") })
        XCTAssertEqual(log, ["success 1", "disposed", "resource disposed"])
    }

    func testCreateRacingCallbacksDeliverExactlyOneEvent() {
        for _ in 0..<200 {
            let received = LockedLog<Int>()
            let single = Single<Int>.create { single in
                DispatchQueue.concurrentPerform(iterations: 4) { single(.success($0)) }
                return Disposables.create()
            }
            _ = single.subscribe(onSuccess: { received.append($0) })
            XCTAssertEqual(received.values.count, 1)
        }
    }

    // MARK: subscribe

    func testSubscribeOnDisposedRunsOnceAfterOnSuccess() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(10)])
        var log: [String] = []

        let subscription = xs.asSingle().subscribe(
            onSuccess: { log.append("success \($0) at \(scheduler.clock)") },
            onFailure: { _ in log.append("failure") },
            onDisposed: { log.append("disposed at \(scheduler.clock)") })
        scheduler.start()
        subscription.dispose()

        XCTAssertEqual(log, ["success 1 at 10", "disposed at 10"])
    }

    func testSubscribeOnDisposedRunsOnceAfterOnFailure() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createColdObservable([.error(20, testError)])
        var log: [String] = []

        let subscription = xs.asSingle().subscribe(
            onSuccess: { _ in log.append("success") },
            onFailure: { log.append("failure \($0) at \(scheduler.clock)") },
            onDisposed: { log.append("disposed at \(scheduler.clock)") })
        scheduler.start()
        subscription.dispose()

        XCTAssertEqual(log, ["failure \(testError) at 20", "disposed at 20"])
    }

    func testSubscribeOnDisposedRunsWhenDisposedBeforeAnyEvent() {
        var log: [String] = []
        let subscription = Single<Int>.never().subscribe(
            onSuccess: { _ in log.append("success") },
            onFailure: { _ in log.append("failure") },
            onDisposed: { log.append("disposed") })
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(log, ["disposed"])
    }

    func testSubscribeEventForm() {
        var events: [String] = []
        _ = Single.just(1).subscribe { event in
            switch event {
            case .success(let element): events.append("success \(element)")
            case .failure(let error): events.append("failure \(error)")
            }
        }
        _ = Single<Int>.error(testError).subscribe { event in
            if case .failure(let error) = event { events.append("failure \(error)") }
        }
        XCTAssertEqual(events, ["success 1", "failure \(testError)"])
    }

    func testSubscribeWithObjectHoldsItWeakly() {
        var owner: Owner? = Owner()
        _ = Single.just(1).subscribe(with: owner!, onSuccess: { owner, value in owner.values.append(value) })
        _ = Maybe<Int>.empty().subscribe(with: owner!, onCompleted: { owner in owner.values.append(2) })
        _ = Completable.error(testError).subscribe(with: owner!, onError: { owner, _ in owner.values.append(3) })
        XCTAssertEqual(owner?.values, [1, 2, 3])

        let subject = PublishSubject<Int>()
        var calls = 0
        let subscription = subject.asSingle().subscribe(with: owner!, onSuccess: { _, _ in calls += 1 }, onDisposed: { _ in calls += 1 })
        owner = nil
        subject.onNext(1)
        subject.onCompleted()
        subscription.dispose()
        XCTAssertEqual(calls, 0)
    }

    // MARK: factories

    func testJustErrorNever() {
        XCTAssertEqual(freshStart { Single.just(1).asObservable() }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(freshStart { Single<Int>.error(testError).asObservable() }, [.error(200, testError)])
        XCTAssertEqual(freshStart { Single<Int>.never().asObservable() }, [])
    }

    func testDeferredBuildsPerSubscriber() {
        var built = 0
        let single = Single<Int>.deferred {
            built += 1
            return .just(built)
        }
        var values: [Int] = []
        _ = single.subscribe(onSuccess: { values.append($0) })
        _ = single.subscribe(onSuccess: { values.append($0) })
        XCTAssertEqual(values, [1, 2])
    }

    // MARK: operators keep the trait

    func testMapIsASingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 2), .completed(10)])
        let res = scheduler.start {
            let mapped: Single<String> = xs.asSingle().map { "\($0 * 10)" }
            return mapped.asObservable()
        }
        XCTAssertEqual(res.events, [.next(210, "20"), .completed(210)])
    }

    func testMapThrowingFails() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Single.just(1).map { _ -> Int in throw testError }.asObservable()
        }
        XCTAssertEqual(res.events, [.error(200, testError)])
    }

    func testFilterIsAMaybe() {
        let kept = freshStart {
            let maybe: Maybe<Int> = Single.just(2).filter { $0 > 1 }
            return maybe.asObservable()
        }
        let dropped = freshStart { Single.just(0).filter { $0 > 1 }.asObservable() }
        XCTAssertEqual(kept, [.next(200, 2), .completed(200)])
        XCTAssertEqual(dropped, [.completed(200)])
    }

    func testCompactMapIsAMaybe() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            let maybe: Maybe<Int> = Single.just("x").compactMap { Int($0) }
            return maybe.asObservable()
        }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testFlatMapChainsSingles() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(20, "b"), .completed(20)])
        let xs = scheduler.createColdObservable([.next(10, "a"), .completed(10)])
        let res = scheduler.start {
            xs.asSingle().flatMap { a in inner.asSingle().map { a + $0 } }.asObservable()
        }
        XCTAssertEqual(res.events, [.next(230, "ab"), .completed(230)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 230)])
    }

    func testFlatMapMaybeAndFlatMapCompletable() {
        let maybe = freshStart {
            let result: Maybe<Int> = Single.just(1).flatMapMaybe { _ in Maybe<Int>.empty() }
            return result.asObservable()
        }
        var wrote: [Int] = []
        let completable = freshStart {
            let result: Completable = Single.just(7).flatMapCompletable { value in
                Completable.create { done in
                    wrote.append(value)
                    done(.completed)
                    return Disposables.create()
                }
            }
            return result.asObservable()
        }
        XCTAssertEqual(maybe, [.completed(200)])
        XCTAssertEqual(completable, [.completed(200)])
        XCTAssertEqual(wrote, [7])
    }

    func testCatchAndCatchAndReturn() {
        let caught = freshStart {
            Single<Int>.error(testError).catch { _ in .just(5) }.asObservable()
        }
        let returned = freshStart {
            Single<Int>.error(testError).catchAndReturn(6).asObservable()
        }
        XCTAssertEqual(caught, [.next(200, 5), .completed(200)])
        XCTAssertEqual(returned, [.next(200, 6), .completed(200)])
    }

    func testRetryResubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
        let res = scheduler.start { xs.asSingle().retry(3).asObservable() }
        XCTAssertEqual(res.events, [.error(230, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210), Subscription(210, 220), Subscription(220, 230)])
    }

    func testTimeoutFailsWithRxErrorTimeout() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(100, 1), .completed(100)])
        let res = scheduler.start { xs.asSingle().timeout(.seconds(50), scheduler: scheduler).asObservable() }
        XCTAssertEqual(res.events, [.error(250, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testTimeoutLetsAnEarlySuccessThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(30, 1), .completed(30)])
        let res = scheduler.start { xs.asSingle().timeout(.seconds(50), scheduler: scheduler).asObservable() }
        XCTAssertEqual(res.events, [.next(230, 1), .completed(230)])
    }

    func testTimeoutSwitchesToTheOtherSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(100, 1), .completed(100)])
        let other = scheduler.createColdObservable([.next(10, 2), .completed(10)])
        let res = scheduler.start {
            xs.asSingle().timeout(.seconds(50), other: other.asSingle(), scheduler: scheduler).asObservable()
        }
        XCTAssertEqual(res.events, [.next(260, 2), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(other.subscriptions, [Subscription(250, 260)])
    }

    func testDelayObserveOnSubscribeOn() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let delayed = scheduler.start { Single.just(1).delay(.seconds(30), scheduler: scheduler).asObservable() }
        XCTAssertEqual(delayed.events, [.next(230, 1), .completed(230)])

        var onScheduler: [Bool] = []
        _ = Single.just(1).observe(on: scheduler).subscribe(onSuccess: { _ in onScheduler.append(true) })
        _ = Single.just(2).subscribe(on: scheduler).subscribe(onSuccess: { _ in onScheduler.append(true) })
        XCTAssertEqual(onScheduler, [], "nothing before the scheduler runs")
        scheduler.start()
        XCTAssertEqual(onScheduler, [true, true])
    }

    func testDoRunsSideEffects() {
        var log: [String] = []
        let single = Single.just(1).do(
            onSuccess: { log.append("success \($0)") },
            onError: { _ in log.append("error") },
            onSubscribe: { log.append("subscribe") },
            onDispose: { log.append("dispose") })
        _ = single.subscribe()
        XCTAssertEqual(log, ["subscribe", "success 1", "dispose"])
    }

    func testZip() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createColdObservable([.next(10, 1), .completed(10)])
        let b = scheduler.createColdObservable([.next(30, "x"), .completed(30)])
        let res = scheduler.start {
            Single.zip(a.asSingle(), b.asSingle()) { "\($0)\($1)" }.asObservable()
        }
        XCTAssertEqual(res.events, [.next(230, "1x"), .completed(230)])

        let tuple = freshStart { Single.zip(Single.just(1), Single.just("y")).map { "\($0)\($1)" }.asObservable() }
        XCTAssertEqual(tuple, [.next(200, "1y"), .completed(200)])

        let all = freshStart { Single.zip([Single.just(1), Single.just(2)]).asObservable() }
        XCTAssertEqual(all, [.next(200, [1, 2]), .completed(200)])

        let three = freshStart {
            Single.zip(Single.just(1), Single.just(2), Single.just(3)) { $0 + $1 + $2 }.asObservable()
        }
        XCTAssertEqual(three, [.next(200, 6), .completed(200)])

        let tuple3 = freshStart {
            Single.zip(Single.just(1), Single.just("a"), Single.just(true)).map { "\($0)\($1)\($2)" }.asObservable()
        }
        XCTAssertEqual(tuple3, [.next(200, "1atrue"), .completed(200)])

        let none = freshStart { Single<Int>.zip([]).asObservable() }
        XCTAssertEqual(none, [.next(200, []), .completed(200)])
    }

    func testZipFailsWithTheFirstError() {
        let scheduler = TestScheduler(initialClock: 0)
        let a: TestableObservable<Int> = scheduler.createColdObservable([.error(10, testError)])
        let b = scheduler.createColdObservable([.next(30, 2), .completed(30)])
        let res = scheduler.start { Single.zip(a.asSingle(), b.asSingle()) { $0 + $1 }.asObservable() }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(b.subscriptions, [Subscription(200, 210)])
    }

    func testAsMaybeAndAsCompletable() {
        let maybe = freshStart { Single.just(1).asMaybe().asObservable() }
        let completable = freshStart { Single.just(1).asCompletable().asObservable() }
        XCTAssertEqual(maybe, [.next(200, 1), .completed(200)])
        XCTAssertEqual(completable, [.completed(200)])
    }
}
