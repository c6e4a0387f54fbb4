import Rx
import RxTest
import XCTest

/// `ControlProperty` (live configuration) and `ControlEvent` (lifecycle events).
final class TraitsControlTests: RxTestCase {
    func testControlPropertyReplaysTheCurrentValueThenChanges() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let limit = ControlProperty(relay: BehaviorRelay(value: 20))
            var subscriptions: [Disposable] = []
            scheduler.scheduleAt(200) { subscriptions.append(limit.subscribe(early)) }
            scheduler.scheduleAt(210) { limit.onNext(50) }
            scheduler.scheduleAt(220) { subscriptions.append(limit.subscribe(late)) }
            scheduler.scheduleAt(230) { limit.onNext(60) }
            scheduler.scheduleAt(240) { limit.onError(testError) }  // ignored: a property can't fail
            scheduler.scheduleAt(300) { subscriptions.forEach { $0.dispose() } }
            scheduler.start()
        }
        XCTAssertEqual(early.events, [.next(200, 20), .next(210, 50), .next(230, 60)])
        XCTAssertEqual(late.events, [.next(220, 50), .next(230, 60)])
    }

    func testControlPropertyChangedSkipsTheCurrentValue() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let relay = BehaviorRelay(value: "a")
        scheduler.scheduleAt(210) { relay.accept("b") }
        SharingScheduler.mock(scheduler: scheduler) {
            let property = ControlProperty(relay: relay)
            let res = scheduler.start { property.changed.asObservable() }
            XCTAssertEqual(res.events, [.next(210, "b")])
        }
    }

    func testControlPropertyFromValuesAndSinkNeverErrors() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let values = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(220, testError)])
        let sink = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let property = ControlProperty(values: values, valueSink: sink)
            scheduler.scheduleAt(215) { property.onNext(9) }
            let res = scheduler.start { property.asDriver().asObservable() }
            XCTAssertEqual(res.events, [.next(210, 2), .completed(220)])
        }
        XCTAssertEqual(sink.events, [.next(215, 9)])
    }

    func testControlPropertyDrivenFromADriver() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let relay = BehaviorRelay(value: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2)])
        SharingScheduler.mock(scheduler: scheduler) {
            let property = ControlProperty(relay: relay)
            var subscription: Disposable?
            scheduler.scheduleAt(200) { subscription = xs.asDriver(onErrorJustReturn: -1).drive(property) }
            scheduler.scheduleAt(300) { subscription?.dispose() }
            scheduler.start()
        }
        XCTAssertEqual(relay.value, 2)
    }

    func testControlEventHasNoInitialValueAndNeverErrors() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(150, "booting"), .next(210, "started"), .next(230, "draining"), .error(240, testError)])
        let early = scheduler.createObserver(String.self)
        let late = scheduler.createObserver(String.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let lifecycle = ControlEvent(events: xs)
            var subscriptions: [Disposable] = []
            scheduler.scheduleAt(200) { subscriptions.append(lifecycle.asSignal().emit(to: early)) }
            scheduler.scheduleAt(220) { subscriptions.append(lifecycle.subscribe(late)) }
            scheduler.scheduleAt(300) { subscriptions.forEach { $0.dispose() } }
            scheduler.start()
        }
        XCTAssertEqual(early.events, [.next(210, "started"), .next(230, "draining"), .completed(240)])
        XCTAssertEqual(late.events, [.next(230, "draining"), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }

    func testControlEventAsDriverReplaysTheLatestEvent() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2)])
        let late = scheduler.createObserver(Int.self)
        SharingScheduler.mock(scheduler: scheduler) {
            let driver = ControlEvent(events: xs).asDriver()
            var subscriptions: [Disposable] = []
            scheduler.scheduleAt(200) { subscriptions.append(driver.drive()) }
            scheduler.scheduleAt(220) { subscriptions.append(driver.drive(late)) }
            scheduler.scheduleAt(300) { subscriptions.forEach { $0.dispose() } }
            scheduler.start()
        }
        XCTAssertEqual(late.events, [.next(220, 1), .next(230, 2)])
    }
}
