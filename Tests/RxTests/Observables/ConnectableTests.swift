import Rx
import RxTest
import XCTest

/// publish, multicast, replay, replayAll, connect, refCount (RxSwift's behaviour).
final class ConnectableTests: RxTestCase {
    func testPublishDeliversOnlyWhileConnected() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .next(250, 3), .next(270, 4), .completed(400)])
        let observer = scheduler.createObserver(Int.self)
        var published: ConnectableObservable<Int>!
        var connection: Disposable!
        var subscription: Disposable!
        scheduler.scheduleAt(100) { published = xs.publish() }
        scheduler.scheduleAt(200) { subscription = published.subscribe(observer) }
        scheduler.scheduleAt(220) { connection = published.connect() }
        scheduler.scheduleAt(260) { connection.dispose() }
        scheduler.scheduleAt(1000) { subscription.dispose() }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(230, 2), .next(250, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(220, 260)])
    }

    func testPublishMakesAFreshSubjectAfterTermination() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        let published = xs.publish()
        var disposables: [Disposable] = []
        scheduler.scheduleAt(200) { disposables.append(published.subscribe(first)); disposables.append(published.connect()) }
        scheduler.scheduleAt(300) { disposables.append(published.subscribe(second)); disposables.append(published.connect()) }
        scheduler.scheduleAt(1000) { disposables.forEach { $0.dispose() } }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(210, 1), .completed(220)])
        XCTAssertEqual(second.events, [.next(310, 1), .completed(320)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(300, 320)])
    }

    func testMulticastWithOneSubjectDoesNotRevive() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        let connectable = xs.multicast(PublishSubject<Int>())
        var disposables: [Disposable] = []
        scheduler.scheduleAt(200) { disposables.append(connectable.subscribe(first)); disposables.append(connectable.connect()) }
        scheduler.scheduleAt(300) { disposables.append(connectable.subscribe(second)); disposables.append(connectable.connect()) }
        scheduler.scheduleAt(1000) { disposables.forEach { $0.dispose() } }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(210, 1), .completed(220)])
        // The subject has completed: a late subscriber gets only that; `connect()` is explicit here,
        // so the source is subscribed again and feeds the dead subject.
        XCTAssertEqual(second.events, [.completed(300)])
    }

    func testReplayReplaysToLateSubscribers() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .next(300, 4), .completed(400)])
        let late = scheduler.createObserver(Int.self)
        let replayed = xs.replay(2)
        var disposables: [Disposable] = []
        scheduler.scheduleAt(200) { disposables.append(replayed.connect()) }
        scheduler.scheduleAt(250) { disposables.append(replayed.subscribe(late)) }
        scheduler.scheduleAt(1000) { disposables.forEach { $0.dispose() } }
        scheduler.start()
        XCTAssertEqual(late.events, [.next(250, 2), .next(250, 3), .next(300, 4), .completed(400)])
    }

    func testReplayAll() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let late = scheduler.createObserver(Int.self)
        let replayed = xs.replayAll()
        var disposables: [Disposable] = []
        scheduler.scheduleAt(200) { disposables.append(replayed.connect()) }
        scheduler.scheduleAt(225) { disposables.append(replayed.subscribe(late)) }
        scheduler.scheduleAt(1000) { disposables.forEach { $0.dispose() } }
        scheduler.start()
        XCTAssertEqual(late.events, [.next(225, 1), .next(225, 2), .completed(230)])
    }

    func testRefCountConnectsWithTheFirstAndDisconnectsWithTheLast() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .next(270, 3), .completed(400)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.publish().refCount()
        var subA: Disposable!
        var subB: Disposable!
        scheduler.scheduleAt(200) { subA = shared.subscribe(a) }
        scheduler.scheduleAt(230) { subB = shared.subscribe(b) }
        scheduler.scheduleAt(250) { subA.dispose() }
        scheduler.scheduleAt(280) { subB.dispose() }
        scheduler.start()
        XCTAssertEqual(a.events, [.next(210, 1), .next(240, 2)])
        XCTAssertEqual(b.events, [.next(240, 2), .next(270, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 280)])
    }

    func testRefCountReconnectsAfterTermination() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.publish().refCount()
        var disposables: [Disposable] = []
        scheduler.scheduleAt(200) { disposables.append(shared.subscribe(a)) }
        scheduler.scheduleAt(300) { disposables.append(shared.subscribe(b)) }
        scheduler.scheduleAt(1000) { disposables.forEach { $0.dispose() } }
        scheduler.start()
        XCTAssertEqual(a.events, [.next(210, 1), .completed(220)])
        XCTAssertEqual(b.events, [.next(310, 1), .completed(320)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(300, 320)])
    }

    /// RxSwift's `RefCountSink.run` subscribes the subject first: a terminated subject ends
    /// the subscriber at once, the sink is disposed, and `run` returns before `connect()`.
    /// So `multicast(fixedSubject).refCount()` (RxSwift 6's `share(scope: .forever)`) does
    /// not subscribe the source again; `share(replay: 1, scope: .forever)` agrees (ShareTests).
    func testRefCountOverTerminatedFixedSubjectDoesNotReconnect() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .completed(30)])
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let shared = xs.multicast(ReplaySubject<Int>.create(bufferSize: 1)).refCount()
        var disposables: [Disposable] = []
        scheduler.scheduleAt(200) { disposables.append(shared.subscribe(a)) }
        scheduler.scheduleAt(300) { disposables.append(shared.subscribe(b)) }
        scheduler.scheduleAt(1000) { disposables.forEach { $0.dispose() } }
        scheduler.start()
        XCTAssertEqual(a.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(b.events, [.next(300, 2), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testMulticastWithSelector() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start {
            xs.multicast({ PublishSubject<Int>() }, selector: { shared in Observable.zip(shared, shared.skip(1)) { $0 + $1 } })
        }
        XCTAssertEqual(res.events, [.next(220, 3), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }
}
