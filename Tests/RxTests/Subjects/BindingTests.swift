import Base
import Foundation
import Rx
import RxTest
import XCTest

/// bind(to:) for relays and observers (several, optional), DisposeBag(disposing:) and its
/// builder, MainScheduler, HistoricalScheduler.
final class BindingTests: RxTestCase {
    func testBindToSeveralRelaysAndOptionalRelays() {
        let publish = PublishRelay<Int>()
        let behavior = BehaviorRelay<Int>(value: 0)
        let optional = BehaviorRelay<Int?>(value: nil)
        let replay = ReplayRelay<Int>.create(bufferSize: 2)
        var published: [Int] = []
        let bag = DisposeBag(disposing: publish.subscribe(onNext: { published.append($0) }))
        bag.insert(Observable.of(1, 2, 3).bind(to: publish, publish))
        bag.insert(Observable.of(4, 5).bind(to: behavior))
        bag.insert(Observable.just(6).bind(to: optional))
        bag.insert(Observable.of(7, 8, 9).bind(to: replay))
        XCTAssertEqual(published, [1, 1, 2, 2, 3, 3])
        XCTAssertEqual(behavior.value, 5)
        XCTAssertEqual(optional.value, 6)
        var replayed: [Int] = []
        bag.insert(replay.subscribe(onNext: { replayed.append($0) }))
        XCTAssertEqual(replayed, [8, 9])
    }

    func testBindToObserversAndOptionalObservers() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int?.self)
        _ = Observable.of(1, 2).bind(to: a, a)
        _ = Observable.just(3).bind(to: b)
        XCTAssertEqual(a.events, [.next(0, 1), .next(0, 1), .next(0, 2), .next(0, 2), .completed(0), .completed(0)])
        XCTAssertEqual(b.events, [.next(0, 3), .completed(0)])
    }

    func testDisposeBagBuilderDisposesEverythingOnRelease() {
        var disposed: [String] = []
        var bag: DisposeBag? = DisposeBag {
            Disposables.create { disposed.append("a") }
            Disposables.create { disposed.append("b") }
        }
        bag?.insert {
            Disposables.create { disposed.append("c") }
        }
        XCTAssertEqual(disposed, [])
        bag = nil
        XCTAssertEqual(disposed, ["a", "b", "c"])
    }

    func testMainSchedulerIsOneSerialQueue() {
        let done = expectation(description: "delivered")
        let onQueue = Locked<[Bool]>([])
        let subscription = Observable.of(1, 2, 3)
            .observe(on: MainScheduler.instance)
            .subscribe(onNext: { _ in onQueue.withLock { $0.append(MainScheduler.isOnQueue) } }, onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(onQueue.withLock { $0 }, [true, true, true])
        XCTAssertFalse(MainScheduler.isOnQueue)
    }

    func testHistoricalScheduler() {
        let scheduler = HistoricalScheduler(initialClock: Date(timeIntervalSince1970: 100))
        var firedAt: [TimeInterval] = []
        _ = Observable<Int>.timer(.seconds(5), scheduler: scheduler).subscribe(onNext: { _ in firedAt.append(scheduler.now.timeIntervalSince1970) })
        scheduler.start()
        XCTAssertEqual(firedAt, [105])
    }
}
