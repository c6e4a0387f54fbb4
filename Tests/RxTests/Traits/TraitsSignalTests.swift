import Dispatch
import Rx
import RxTest
import XCTest

final class TraitsSignalTests: RxTestCase {
    func testLateSubscriberGetsNothingReplayed() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(240, 3)])
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let signal = xs.asSignal(onErrorJustReturn: -1)
            var subscriptions: [Disposable] = []
            scheduler.scheduleAt(200) { subscriptions.append(signal.emit(to: early)) }
            scheduler.scheduleAt(230) { subscriptions.append(signal.emit(to: late)) }
            scheduler.scheduleAt(300) { subscriptions.forEach { $0.dispose() } }
            scheduler.start()
        }
        XCTAssertEqual(early.events, [.next(210, 1), .next(220, 2), .next(240, 3)])
        XCTAssertEqual(late.events, [.next(240, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testAsSignalTwins() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        SharingScheduler.mock(scheduler: scheduler) {
            let observers = (0..<3).map { _ in scheduler.createObserver(Int.self) }
            scheduler.scheduleAt(200) {
                _ = xs.asSignal(onErrorJustReturn: -1).emit(to: observers[0])
                _ = xs.asSignal(onErrorSignalWith: Signal.just(-2)).emit(to: observers[1])
                _ = xs.asSignal(onErrorRecover: { _ in Signal.of(-3, -4) }).emit(to: observers[2])
            }
            scheduler.start()
            XCTAssertEqual(observers[0].events, [.next(210, 1), .next(220, -1), .completed(220)])
            XCTAssertEqual(observers[1].events, [.next(210, 1), .next(220, -2), .completed(220)])
            XCTAssertEqual(observers[2].events, [.next(210, 1), .next(220, -3), .next(220, -4), .completed(220)])
        }
    }

    func testDeliversOnTheMockedSharingScheduler() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let relay = PublishRelay<Int>()
        var received: [Int] = []
        SharingScheduler.mock(scheduler: scheduler) {
            let subscription = relay.asSignal().emit(onNext: { received.append($0) })
            relay.accept(1)
            XCTAssertEqual(received, [])
            scheduler.start()
            XCTAssertEqual(received, [1])
            subscription.dispose()
        }
    }

    func testBuildingDeliversOnTheGivenSchedulerOnlyOnThisThread() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let relay = PublishRelay<Int>()
        var received: [Int] = []
        let subscription = SharingScheduler.building(deliveringOn: scheduler) {
            relay.asSignal().map { $0 * 10 }.emit(onNext: { received.append($0) })
        }
        // Built outside: back on the process-wide factory, a new serial queue, not `scheduler`.
        XCTAssertFalse(SharingScheduler.make() as AnyObject === scheduler)
        // Another thread, meanwhile, is not affected (`sync` may run on this thread; `async` does not).
        let madeThere = LockedLog<Bool>()
        let done = DispatchSemaphore(value: 0)
        SharingScheduler.building(deliveringOn: scheduler) {
            DispatchQueue.global().async {
                madeThere.append(SharingScheduler.make() as AnyObject === scheduler)
                done.signal()
            }
            done.wait()
        }
        XCTAssertEqual(madeThere.values, [false])
        relay.accept(1)
        XCTAssertEqual(received, [])
        scheduler.start()
        XCTAssertEqual(received, [10])
        subscription.dispose()
    }

    func testPublishRelayAsSignalAndOperators() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let relay = PublishRelay<Int>()
        scheduler.scheduleAt(210) { relay.accept(1) }
        scheduler.scheduleAt(220) { relay.accept(2) }
        scheduler.scheduleAt(230) { relay.accept(3) }
        SharingScheduler.mock(scheduler: scheduler) {
            let res = scheduler.start {
                relay.asSignal().filter { $0 != 2 }.map { $0 * 10 }.asObservable()
            }
            XCTAssertEqual(res.events, [.next(210, 10), .next(230, 30)])
        }
    }

    func testEmitToRelaysAndHandlers() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let behavior = BehaviorRelay(value: 0)
        let publish = PublishRelay<Int>()
        let replay = ReplayRelay<Int>.create(bufferSize: 5)
        let owner = Owner()
        let optionalObserver = scheduler.createObserver(Int?.self)
        var published: [Int] = []
        var log: [String] = []
        let publishSubscription = publish.subscribe(onNext: { published.append($0) })
        SharingScheduler.mock(scheduler: scheduler) {
            let signal = xs.asSignal(onErrorJustReturn: -1)
            scheduler.scheduleAt(200) {
                _ = signal.emit(to: behavior)
                _ = signal.emit(to: publish)
                _ = signal.emit(to: replay)
                _ = signal.emit(with: owner, onNext: { owner, value in owner.values.append(value) },
                                onCompleted: { owner in owner.values.append(-9) })
                _ = signal.emit(to: optionalObserver)
                _ = signal.emit(
                    onNext: { log.append("next \($0)") },
                    onCompleted: { log.append("completed") },
                    onDisposed: { log.append("disposed") })
                _ = signal.emit()
            }
            scheduler.start()
        }
        publishSubscription.dispose()
        XCTAssertEqual(behavior.value, 2)
        XCTAssertEqual(published, [1, 2])
        XCTAssertEqual(owner.values, [1, 2, -9])
        var replayed: [Int] = []
        replay.subscribe(onNext: { replayed.append($0) }).dispose()
        XCTAssertEqual(replayed, [1, 2])
        XCTAssertEqual(optionalObserver.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(log, ["next 1", "next 2", "completed", "disposed"])
    }
}
