import Rx
import RxTest
import XCTest

final class DoTests: RxTestCase {
    func testDoCallsHandlersInOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        var log: [String] = []
        let res = scheduler.start {
            xs.do(
                onNext: { log.append("onNext \($0) @\(scheduler.clock)") },
                afterNext: { log.append("afterNext \($0)") },
                onError: { _ in log.append("onError") },
                afterError: { _ in log.append("afterError") },
                onCompleted: { log.append("onCompleted") },
                afterCompleted: { log.append("afterCompleted") },
                onSubscribe: { log.append("onSubscribe") },
                onSubscribed: { log.append("onSubscribed") },
                onDispose: { log.append("onDispose @\(scheduler.clock)") }
            )
            .do(onNext: { _ in log.append("downstream") })
        }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(300)])
        XCTAssertEqual(log, [
            "onSubscribe", "onSubscribed",
            "onNext 1 @210", "downstream", "afterNext 1",
            // As in RxSwift: the downstream sink disposes the chain on `completed`
            // before this operator's `afterCompleted` runs.
            "onCompleted", "onDispose @300", "afterCompleted",
        ])
    }

    func testDoErrorHandlers() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(250, testError)])
        var log: [String] = []
        let res = scheduler.start {
            xs.do(onError: { log.append("onError \($0)") }, afterError: { log.append("afterError \($0)") }, onDispose: { log.append("onDispose") })
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(250, testError)])
        XCTAssertEqual(log, ["onError testError", "afterError testError", "onDispose"])
    }

    func testDoOnNextThrowingBecomesError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start { xs.do(onNext: { if $0 == 2 { throw testError } }) }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testDoOnDisposeWhenSubscriberDisposes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1)])
        var disposedAt: [Int] = []
        _ = scheduler.start(disposed: 400) { xs.do(onDispose: { disposedAt.append(scheduler.clock) }) }
        XCTAssertEqual(disposedAt, [400])
    }
}
