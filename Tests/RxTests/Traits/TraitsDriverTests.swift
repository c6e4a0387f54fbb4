import Rx
import RxTest
import XCTest

final class TraitsDriverTests: RxTestCase {
    // MARK: ways in

    func testAsDriverOnErrorJustReturnEmitsTheFallbackAndCompletes() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(150, 0), .next(210, 1), .error(220, testError), .next(230, 2)])
        SharingScheduler.mock(scheduler: scheduler) {
            let res = scheduler.start { xs.asDriver(onErrorJustReturn: -1).asObservable() }
            XCTAssertEqual(res.events, [.next(210, 1), .next(220, -1), .completed(220)])
        }
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAsDriverOnErrorDriveWith() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let fallback = scheduler.createColdObservable([.next(10, 7), .next(20, 8)])
        SharingScheduler.mock(scheduler: scheduler) {
            let res = scheduler.start {
                xs.asDriver(onErrorDriveWith: fallback.asDriver(onErrorJustReturn: -1)).asObservable()
            }
            XCTAssertEqual(res.events, [.next(210, 1), .next(230, 7), .next(240, 8)])
        }
        XCTAssertEqual(fallback.subscriptions, [Subscription(220, 1000)])
    }

    func testAsDriverOnErrorRecoverSeesTheError() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        var seen: [String] = []
        SharingScheduler.mock(scheduler: scheduler) {
            let res = scheduler.start {
                xs.asDriver(onErrorRecover: { error in
                    seen.append("\(error)")
                    return Driver.just(-2)
                }).asObservable()
            }
            XCTAssertEqual(res.events, [.next(210, 1), .next(220, -2), .completed(220)])
        }
        XCTAssertEqual(seen, ["testError"])
    }

    // MARK: sharing

    func testLateSubscriberGetsTheLatestElementAtOnceAndOneConnectionServesAll() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let driver = xs.asDriver(onErrorJustReturn: -1)
            var subscriptions: [Disposable] = []
            scheduler.scheduleAt(200) { subscriptions.append(driver.drive(early)) }
            scheduler.scheduleAt(230) { subscriptions.append(driver.drive(late)) }
            scheduler.scheduleAt(300) { subscriptions.forEach { $0.dispose() } }
            scheduler.start()
        }
        XCTAssertEqual(early.events, [.next(210, 1), .next(220, 2), .next(240, 3)])
        XCTAssertEqual(late.events, [.next(230, 2), .next(240, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testTheReplayedElementIsDroppedWhenTheLastSubscriberLeaves() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(270, 2)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let driver = xs.asDriver(onErrorJustReturn: -1)
            var subscriptions: [Disposable] = []
            scheduler.scheduleAt(200) { subscriptions.append(driver.drive(first)) }
            scheduler.scheduleAt(250) { subscriptions[0].dispose() }
            scheduler.scheduleAt(260) { subscriptions.append(driver.drive(second)) }
            scheduler.scheduleAt(300) { subscriptions[1].dispose() }
            scheduler.start()
        }
        XCTAssertEqual(first.events, [.next(210, 1)])
        XCTAssertEqual(second.events, [.next(270, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250), Subscription(260, 300)])
    }

    // MARK: the sharing scheduler

    func testDeliversOnTheMockedSharingScheduler() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let subject = PublishSubject<Int>()
        var received: [Int] = []
        SharingScheduler.mock(scheduler: scheduler) {
            let subscription = subject.asDriver(onErrorJustReturn: -1).drive(onNext: { received.append($0) })
            subject.onNext(1)
            XCTAssertEqual(received, [], "queued on the sharing scheduler, not delivered on the caller's stack")
            scheduler.start()
            XCTAssertEqual(received, [1])
            subscription.dispose()
        }
    }

    func testMockIsUndoneAndTheDefaultIsASerialSchedulerPerSequence() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        SharingScheduler.mock(scheduler: scheduler) {
            XCTAssertTrue(SharingScheduler.make() as AnyObject === scheduler)
            SharingScheduler.mock(makeScheduler: { MainlessScheduler() }) {
                XCTAssertTrue(SharingScheduler.make() is MainlessScheduler)
            }
            XCTAssertTrue(SharingScheduler.make() as AnyObject === scheduler)
        }
        let a = SharingScheduler.make()
        let b = SharingScheduler.make()
        XCTAssertTrue(a is SerialDispatchQueueScheduler)
        XCTAssertFalse(a as AnyObject === b as AnyObject, "one serial queue per shared sequence")
    }

    // MARK: factories

    func testFactories() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        SharingScheduler.mock(scheduler: scheduler) {
            XCTAssertEqual(scheduler.start { Driver.just(1).asObservable() }.events, [.next(200, 1), .completed(200)])
        }
        XCTAssertEqual(recordDriver { Driver.of(1, 2).asObservable() }, [.next(200, 1), .next(200, 2), .completed(200)])
        XCTAssertEqual(recordDriver { Driver.from([3]).asObservable() }, [.next(200, 3), .completed(200)])
        XCTAssertEqual(recordDriver { Driver<Int>.empty().asObservable() }, [.completed(200)])
        XCTAssertEqual(recordDriver { Driver.from(optional: 5).asObservable() }, [.next(200, 5), .completed(200)])
        XCTAssertEqual(recordDriver { Driver<Int>.from(optional: nil).asObservable() }, [.completed(200)])
        XCTAssertEqual(recordDriver { Driver<Int>.never().asObservable() }, [])
        XCTAssertEqual(recordDriver { Driver.deferred { Driver.just(4) }.asObservable() }, [.next(200, 4), .completed(200)])
        XCTAssertEqual(recordDriver(disposed: 235) { Driver<Int>.interval(.seconds(10)).asObservable() },
                       [.next(210, 0), .next(220, 1), .next(230, 2)])
        XCTAssertEqual(recordDriver(disposed: 235) { Driver<Int>.timer(.seconds(5), period: .seconds(10)).asObservable() },
                       [.next(205, 0), .next(215, 1), .next(225, 2)])
    }

    // MARK: operators

    func testMapFilterCompactMapSkipTakeDistinctUntilChanged() {
        let events: [Recorded<Event<Int>>] = [.next(210, 1), .next(220, 2), .next(230, 2), .next(240, 3), .next(250, 4), .completed(300)]
        XCTAssertEqual(recordDriver(events) { $0.map { $0 * 10 } }, [.next(210, 10), .next(220, 20), .next(230, 20), .next(240, 30), .next(250, 40), .completed(300)])
        XCTAssertEqual(recordDriver(events) { $0.filter { $0 % 2 == 1 } }, [.next(210, 1), .next(240, 3), .completed(300)])
        XCTAssertEqual(recordDriver(events) { $0.compactMap { $0 == 2 ? nil : $0 } }, [.next(210, 1), .next(240, 3), .next(250, 4), .completed(300)])
        XCTAssertEqual(recordDriver(events) { $0.skip(3) }, [.next(240, 3), .next(250, 4), .completed(300)])
        XCTAssertEqual(recordDriver(events) { $0.take(2) }, [.next(210, 1), .next(220, 2), .completed(220)])
        XCTAssertEqual(recordDriver(events) { $0.distinctUntilChanged() }, [.next(210, 1), .next(220, 2), .next(240, 3), .next(250, 4), .completed(300)])
        XCTAssertEqual(recordDriver(events) { $0.distinctUntilChanged { $0 / 2 == $1 / 2 } }, [.next(210, 1), .next(220, 2), .next(250, 4), .completed(300)])
    }

    func testStartWithScanDo() {
        let events: [Recorded<Event<Int>>] = [.next(210, 1), .next(220, 2), .completed(300)]
        XCTAssertEqual(recordDriver(events) { $0.startWith(-1, 0) }, [.next(200, -1), .next(200, 0), .next(210, 1), .next(220, 2), .completed(300)])
        XCTAssertEqual(recordDriver(events) { $0.scan(10) { $0 + $1 } }, [.next(210, 11), .next(220, 13), .completed(300)])
        var log: [String] = []
        _ = recordDriver(events) {
            $0.do(onNext: { log.append("next \($0)") }, onCompleted: { log.append("completed") },
                  onSubscribe: { log.append("subscribe") }, onDispose: { log.append("dispose") })
        }
        XCTAssertEqual(log, ["subscribe", "next 1", "next 2", "completed", "dispose"])
    }

    func testFlatMapLatestDisposesThePreviousInnerDriver() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let outer = scheduler.createHotObservable([.next(210, "a"), .next(240, "b"), .completed(300)])
        let a = scheduler.createColdObservable([.next(10, "a1"), .next(50, "a2")])
        let b = scheduler.createColdObservable([.next(10, "b1"), .error(20, testError)])
        let inners = ["a": a, "b": b]
        SharingScheduler.mock(scheduler: scheduler) {
            let res = scheduler.start {
                outer.asDriver(onErrorJustReturn: "?")
                    .flatMapLatest { key in inners[key]!.asDriver(onErrorJustReturn: "\(key) failed") }
                    .asObservable()
            }
            XCTAssertEqual(res.events, [.next(220, "a1"), .next(250, "b1"), .next(260, "b failed"), .completed(300)])
        }
        XCTAssertEqual(a.subscriptions, [Subscription(210, 240)])
        XCTAssertEqual(b.subscriptions, [Subscription(240, 260)])
    }

    func testFlatMapAndConcatMap() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let outer = scheduler.createHotObservable([.next(210, 1), .next(215, 2), .completed(300)])
        SharingScheduler.mock(scheduler: scheduler) {
            let inner = { (value: Int) in
                Observable<Int>.timer(.seconds(10), scheduler: scheduler).map { _ in value }
                    .asDriver(onErrorJustReturn: -1)
            }
            let merged = scheduler.start { outer.asDriver(onErrorJustReturn: -1).flatMap(inner).asObservable() }
            XCTAssertEqual(merged.events, [.next(220, 1), .next(225, 2), .completed(300)])
        }
        let scheduler2 = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let outer2 = scheduler2.createHotObservable([.next(210, 1), .next(215, 2), .completed(300)])
        SharingScheduler.mock(scheduler: scheduler2) {
            let inner = { (value: Int) in
                Observable<Int>.timer(.seconds(10), scheduler: scheduler2).map { _ in value }
                    .asDriver(onErrorJustReturn: -1)
            }
            let concatenated = scheduler2.start { outer2.asDriver(onErrorJustReturn: -1).concatMap(inner).asObservable() }
            XCTAssertEqual(concatenated.events, [.next(220, 1), .next(230, 2), .completed(300)])
        }
    }

    func testCombineLatestMergeZip() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(300)])
        let ys = scheduler.createHotObservable([.next(220, 10), .next(240, 20), .completed(280)])
        SharingScheduler.mock(scheduler: scheduler) {
            let combined = scheduler.createObserver(Int.self)
            let merged = scheduler.createObserver(Int.self)
            let zipped = scheduler.createObserver(Int.self)
            let tuples = scheduler.createObserver(String.self)
            let zippedAll = scheduler.createObserver([Int].self)
            let combinedAll = scheduler.createObserver([Int].self)
            let zippedTuples = scheduler.createObserver(String.self)
            let latest = scheduler.createObserver(Int.self)
            let latestOnly = scheduler.createObserver(Int.self)
            scheduler.scheduleAt(200) {
                let x = xs.asDriver(onErrorJustReturn: -1)
                let y = ys.asDriver(onErrorJustReturn: -1)
                _ = Driver.combineLatest(x, y) { $0 + $1 }.drive(combined)
                _ = Driver.merge(x, y).drive(merged)
                _ = Driver.zip(x, y) { $0 + $1 }.drive(zipped)
                _ = Driver.combineLatest(x, y).map { "\($0)-\($1)" }.drive(tuples)
                _ = Driver.zip([x, y]).drive(zippedAll)
                _ = Driver.combineLatest([x, y]).drive(combinedAll)
                _ = Driver.zip(x, y).map { "\($0)-\($1)" }.drive(zippedTuples)
                _ = y.withLatestFrom(x) { $0 + $1 }.drive(latest)
                _ = y.withLatestFrom(x).drive(latestOnly)
            }
            scheduler.start()
            XCTAssertEqual(combined.events, [.next(220, 11), .next(230, 12), .next(240, 22), .completed(300)])
            XCTAssertEqual(merged.events, [.next(210, 1), .next(220, 10), .next(230, 2), .next(240, 20), .completed(300)])
            XCTAssertEqual(zipped.events, [.next(220, 11), .next(240, 22), .completed(300)])
            XCTAssertEqual(tuples.events, [.next(220, "1-10"), .next(230, "2-10"), .next(240, "2-20"), .completed(300)])
            XCTAssertEqual(zippedAll.events, [.next(220, [1, 10]), .next(240, [2, 20]), .completed(300)])
            XCTAssertEqual(combinedAll.events, [.next(220, [1, 10]), .next(230, [2, 10]), .next(240, [2, 20]), .completed(300)])
            XCTAssertEqual(zippedTuples.events, [.next(220, "1-10"), .next(240, "2-20"), .completed(300)])
            XCTAssertEqual(latest.events, [.next(220, 11), .next(240, 22), .completed(280)])
            XCTAssertEqual(latestOnly.events, [.next(220, 1), .next(240, 2), .completed(280)])
        }
    }

    func testThrottleLatestTrueAndFalse() {
        let events: [Recorded<Event<Int>>] = [.next(210, 1), .next(215, 2), .next(220, 3), .next(260, 4), .completed(300)]
        XCTAssertEqual(recordDriver(events) { $0.throttle(.seconds(20)) },
                       [.next(210, 1), .next(230, 3), .next(260, 4), .completed(300)])
        XCTAssertEqual(recordDriver(events) { $0.throttle(.seconds(20), latest: false) },
                       [.next(210, 1), .next(260, 4), .completed(300)])
    }

    func testDebounceAndDelay() {
        let events: [Recorded<Event<Int>>] = [.next(210, 1), .next(220, 2), .next(250, 3), .completed(300)]
        XCTAssertEqual(recordDriver(events) { $0.debounce(.seconds(20)) },
                       [.next(240, 2), .next(270, 3), .completed(300)])
        XCTAssertEqual(recordDriver(events) { $0.delay(.seconds(5)) },
                       [.next(215, 1), .next(225, 2), .next(255, 3), .completed(305)])
    }

    // MARK: ways out

    func testDriveToObserversRelaysAndHandlers() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let observer = scheduler.createObserver(Int.self)
        let optionalObserver = scheduler.createObserver(Int?.self)
        let behavior = BehaviorRelay(value: 0)
        let publish = PublishRelay<Int>()
        let replay = ReplayRelay<Int>.create(bufferSize: 5)
        let owner = Owner()
        var published: [Int] = []
        var log: [String] = []
        let publishSubscription = publish.subscribe(onNext: { published.append($0) })
        SharingScheduler.mock(scheduler: scheduler) {
            let driver = xs.asDriver(onErrorJustReturn: -1)
            scheduler.scheduleAt(200) {
                _ = driver.drive(observer)
                _ = driver.drive(optionalObserver)
                _ = driver.drive(behavior)
                _ = driver.drive(publish)
                _ = driver.drive(replay)
                _ = driver.drive(with: owner, onNext: { owner, value in owner.values.append(value) },
                                 onCompleted: { owner in owner.values.append(-9) })
                _ = driver.drive(
                    onNext: { log.append("next \($0)") },
                    onCompleted: { log.append("completed") },
                    onDisposed: { log.append("disposed") })
                _ = driver.drive()
                _ = driver.drive { observable in observable.subscribe(onNext: { log.append("transformed \($0)") }) }
            }
            scheduler.start()
        }
        publishSubscription.dispose()
        XCTAssertEqual(observer.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(optionalObserver.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(behavior.value, 2)
        XCTAssertEqual(published, [1, 2])
        XCTAssertEqual(owner.values, [1, 2, -9])
        var replayed: [Int] = []
        replay.subscribe(onNext: { replayed.append($0) }).dispose()
        XCTAssertEqual(replayed, [1, 2])
        XCTAssertEqual(log, ["next 1", "transformed 1", "next 2", "transformed 2", "completed", "disposed"])
    }

    func testBehaviorRelayAsDriverStartsWithTheCurrentValue() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let relay = BehaviorRelay(value: 1)
        scheduler.scheduleAt(220) { relay.accept(2) }
        SharingScheduler.mock(scheduler: scheduler) {
            let res = scheduler.start { relay.asDriver().asObservable() }
            XCTAssertEqual(res.events, [.next(200, 1), .next(220, 2)])
        }
    }

    // MARK: helpers

    /// Records `create`'s sequence, built with the sharing scheduler mocked to virtual time.
    private func recordDriver<Element: Equatable>(
        disposed: TestTime = 1000,
        _ create: @escaping () -> Observable<Element>
    ) -> [Recorded<Event<Element>>] {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var events: [Recorded<Event<Element>>] = []
        SharingScheduler.mock(scheduler: scheduler) {
            events = scheduler.start(disposed: disposed, create: create).events
        }
        return events
    }

    /// Records `operation` applied to a `Driver` of a hot sequence of `events`.
    private func recordDriver<Element: Equatable>(
        _ events: [Recorded<Event<Int>>],
        _ operation: @escaping (Driver<Int>) -> Driver<Element>
    ) -> [Recorded<Event<Element>>] {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable(events)
        var recorded: [Recorded<Event<Element>>] = []
        SharingScheduler.mock(scheduler: scheduler) {
            recorded = scheduler.start { operation(xs.asDriver(onErrorJustReturn: -1)).asObservable() }.events
        }
        return recorded
    }
}

/// An object handlers receive weakly (`drive(with:)`, `emit(with:)`).
final class Owner {
    var values: [Int] = []
}

/// A scheduler type only the mock test makes, to tell factories apart.
private final class MainlessScheduler: SchedulerType, @unchecked Sendable {
    private let base = SerialDispatchQueueScheduler(internalSerialQueueName: "test.mainless")
    var now: RxTime { base.now }
    func schedule<State>(_ state: State, action: @escaping (State) -> Disposable) -> Disposable {
        base.schedule(state, action: action)
    }
    func scheduleRelative<State>(_ state: State, dueTime: RxTimeInterval, action: @escaping (State) -> Disposable) -> Disposable {
        base.scheduleRelative(state, dueTime: dueTime, action: action)
    }
}
