import Rx
import RxTest
import XCTest

/// `share(replay:scope:)` as the contract in traits.md describes it.
final class ShareTests: RxTestCase {
    // MARK: whileConnected

    func testWhileConnectedSharesOneSubscriptionAndReplaysToLateSubscriber() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3), .next(320, 4), .next(410, 5)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let c = scheduler.createObserver(Int.self)
        var shared: Observable<Int>!
        var subA: Disposable!
        var subB: Disposable!
        var subC: Disposable!
        scheduler.scheduleAt(100) { shared = xs.share(replay: 1, scope: .whileConnected) }
        scheduler.scheduleAt(200) { subA = shared.subscribe(a) }
        scheduler.scheduleAt(230) { subB = shared.subscribe(b) }
        scheduler.scheduleAt(300) { subA.dispose() }
        scheduler.scheduleAt(350) { subB.dispose() }
        scheduler.scheduleAt(400) { subC = shared.subscribe(c) }
        scheduler.scheduleAt(500) { subC.dispose() }
        scheduler.start()

        XCTAssertEqual(a.events, [.next(210, 1), .next(220, 2), .next(240, 3)])
        XCTAssertEqual(b.events, [.next(230, 2), .next(240, 3), .next(320, 4)])
        // The buffer went with the connection: C gets no replay, only what comes next.
        XCTAssertEqual(c.events, [.next(410, 5)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 350), Subscription(400, 500)])
    }

    func testWhileConnectedResubscribesAfterCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.share(replay: 1, scope: .whileConnected)
        scheduler.scheduleAt(200) { _ = shared.subscribe(a) }
        scheduler.scheduleAt(300) { _ = shared.subscribe(b) }
        scheduler.start()

        XCTAssertEqual(a.events, [.next(210, 1), .completed(220)])
        XCTAssertEqual(b.events, [.next(310, 1), .completed(320)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(300, 320)])
    }

    func testWhileConnectedResubscribesAfterError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.share(replay: 1, scope: .whileConnected)
        scheduler.scheduleAt(200) { _ = shared.subscribe(a) }
        scheduler.scheduleAt(300) { _ = shared.subscribe(b) }
        scheduler.start()

        XCTAssertEqual(a.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(b.events, [.next(310, 1), .error(320, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(300, 320)])
    }

    func testWhileConnectedWithoutReplayGivesLateSubscriberOnlyNewElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .completed(300)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.share()
        scheduler.scheduleAt(200) { _ = shared.subscribe(a) }
        scheduler.scheduleAt(220) { _ = shared.subscribe(b) }
        scheduler.start()

        XCTAssertEqual(a.events, [.next(210, 1), .next(240, 2), .completed(300)])
        XCTAssertEqual(b.events, [.next(240, 2), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testWhileConnectedReplayMoreThanOne() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .next(250, 4)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.share(replay: 2)
        var subA: Disposable!
        var subB: Disposable!
        scheduler.scheduleAt(200) { subA = shared.subscribe(a) }
        scheduler.scheduleAt(240) { subB = shared.subscribe(b) }
        scheduler.scheduleAt(300) { subA.dispose(); subB.dispose() }
        scheduler.start()

        XCTAssertEqual(b.events, [.next(240, 2), .next(240, 3), .next(250, 4)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    // MARK: forever

    func testForeverReplaysBufferAndTerminalWithoutResubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .completed(30)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.share(replay: 1, scope: .forever)
        scheduler.scheduleAt(200) { _ = shared.subscribe(a) }
        scheduler.scheduleAt(300) { _ = shared.subscribe(b) }
        scheduler.start()

        XCTAssertEqual(a.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(b.events, [.next(300, 2), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testForeverAfterErrorReplaysBufferAndErrorWithoutResubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.share(replay: 1, scope: .forever)
        scheduler.scheduleAt(200) { _ = shared.subscribe(a) }
        scheduler.scheduleAt(300) { _ = shared.subscribe(b) }
        scheduler.start()

        XCTAssertEqual(a.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(b.events, [.next(300, 1), .error(300, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testForeverWithoutReplayGivesLateSubscriberTheTerminalEvent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let b = scheduler.createObserver(Int.self)
        let shared = xs.share(replay: 0, scope: .forever)
        scheduler.scheduleAt(200) { _ = shared.subscribe { _ in } }
        scheduler.scheduleAt(300) { _ = shared.subscribe(b) }
        scheduler.start()

        XCTAssertEqual(b.events, [.completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testForeverBufferOutlivesTheConnection() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(260, 3), .next(320, 4)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.share(replay: 1, scope: .forever)
        var subA: Disposable!
        var subB: Disposable!
        scheduler.scheduleAt(200) { subA = shared.subscribe(a) }
        scheduler.scheduleAt(230) { subA.dispose() }
        scheduler.scheduleAt(300) { subB = shared.subscribe(b) }
        scheduler.scheduleAt(400) { subB.dispose() }
        scheduler.start()

        XCTAssertEqual(a.events, [.next(210, 1), .next(220, 2)])
        // 3 came while nobody was connected; the buffer still holds 2.
        XCTAssertEqual(b.events, [.next(300, 2), .next(320, 4)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230), Subscription(300, 400)])
    }

    // MARK: synchronous replay

    func testReplayHappensSynchronouslyInsideSubscribe() {
        for scope in [SubjectLifetimeScope.whileConnected, .forever] {
            let subject = PublishSubject<Int>()
            let shared = subject.share(replay: 2, scope: scope)
            let first = shared.subscribe { _ in }
            subject.onNext(1)
            subject.onNext(2)
            subject.onNext(3)
            var received: [Int] = []
            let second = shared.subscribe(onNext: { received.append($0) })
            XCTAssertEqual(received, [2, 3])
            subject.onNext(4)
            XCTAssertEqual(received, [2, 3, 4])
            first.dispose()
            second.dispose()
            XCTAssertFalse(subject.hasObservers)
        }
    }

    func testSideEffectsRunOncePerConnection() {
        var subscriptions = 0
        let source = Observable<Int>.create { observer in
            subscriptions += 1
            observer.onNext(subscriptions)
            return Disposables.create()
        }
        let shared = source.share(replay: 1)
        var a: [Int] = []
        var b: [Int] = []
        let d1 = shared.subscribe(onNext: { a.append($0) })
        let d2 = shared.subscribe(onNext: { b.append($0) })
        XCTAssertEqual(subscriptions, 1)
        XCTAssertEqual(a, [1])
        XCTAssertEqual(b, [1])
        d1.dispose()
        d2.dispose()
    }
}
