import Rx
import RxTest
import XCTest

final class RelayTests: RxTestCase {
    func testPublishRelayForwardsAcceptedElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = PublishRelay<Int>()
        let observer = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { relay.accept(0) }
        scheduler.scheduleAt(200) { _ = relay.subscribe(observer) }
        scheduler.scheduleAt(300) { relay.accept(1) }
        scheduler.scheduleAt(400) { relay.accept(2) }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(300, 1), .next(400, 2)])
    }

    func testPublishRelayTellsWhetherAnythingIsSubscribed() {
        let relay = PublishRelay<Int>()
        XCTAssertFalse(relay.hasObservers)
        let first = relay.subscribe(onNext: { _ in })
        let second = relay.asObservable().filter { $0 > 0 }.subscribe(onNext: { _ in })
        XCTAssertTrue(relay.hasObservers)
        first.dispose()
        XCTAssertTrue(relay.hasObservers)
        second.dispose()
        XCTAssertFalse(relay.hasObservers)
    }

    func testBehaviorRelayValueAndReplayOfLatest() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = BehaviorRelay(value: "a")
        let early = scheduler.createObserver(String.self)
        let late = scheduler.createObserver(String.self)
        scheduler.scheduleAt(100) { _ = relay.subscribe(early) }
        scheduler.scheduleAt(200) { relay.accept("b") }
        scheduler.scheduleAt(300) { _ = relay.subscribe(late) }
        scheduler.scheduleAt(400) { relay.accept("c") }
        scheduler.start()
        XCTAssertEqual(early.events, [.next(100, "a"), .next(200, "b"), .next(400, "c")])
        XCTAssertEqual(late.events, [.next(300, "b"), .next(400, "c")])
        XCTAssertEqual(relay.value, "c")
    }

    func testReplayRelay() {
        let relay = ReplayRelay<Int>.create(bufferSize: 1)
        relay.accept(1)
        relay.accept(2)
        var received: [Int] = []
        let d = relay.subscribe(onNext: { received.append($0) })
        XCTAssertEqual(received, [2])
        d.dispose()
    }

    func testRelaysAsObservableNeverTerminate() {
        let relay = BehaviorRelay(value: 1)
        var events: [Event<Int>] = []
        let d = relay.asObservable().subscribe { events.append($0) }
        relay.accept(2)
        XCTAssertEqual(events, [.next(1), .next(2)])
        d.dispose()
    }

    func testBindToRelay() {
        let relay = PublishRelay<Int>()
        var received: [Int] = []
        let d1 = relay.subscribe(onNext: { received.append($0) })
        let d2 = Observable.of(1, 2).bind(to: relay)
        XCTAssertEqual(received, [1, 2])
        d1.dispose()
        d2.dispose()
    }
}
