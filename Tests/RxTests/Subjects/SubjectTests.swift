import Rx
import RxTest
import XCTest

final class SubjectTests: RxTestCase {
    // MARK: PublishSubject

    func testPublishSubjectBroadcastsToCurrentObservers() {
        let scheduler = TestScheduler(initialClock: 0)
        let subject = PublishSubject<Int>()
        let a = scheduler.createObserver(Int.self)
        let b = scheduler.createObserver(Int.self)
        let c = scheduler.createObserver(Int.self)
        var subA: Disposable!
        scheduler.scheduleAt(100) { subA = subject.subscribe(a) }
        scheduler.scheduleAt(110) { subject.onNext(1) }
        scheduler.scheduleAt(120) { _ = subject.subscribe(b) }
        scheduler.scheduleAt(130) { subject.onNext(2) }
        scheduler.scheduleAt(140) { subA.dispose() }
        scheduler.scheduleAt(150) { subject.onNext(3) }
        scheduler.scheduleAt(160) { subject.onCompleted() }
        scheduler.scheduleAt(170) { subject.onNext(4) }
        scheduler.scheduleAt(180) { _ = subject.subscribe(c) }
        scheduler.start()

        XCTAssertEqual(a.events, [.next(110, 1), .next(130, 2)])
        XCTAssertEqual(b.events, [.next(130, 2), .next(150, 3), .completed(160)])
        XCTAssertEqual(c.events, [.completed(180)])
    }

    func testPublishSubjectHasObservers() {
        let subject = PublishSubject<Int>()
        XCTAssertFalse(subject.hasObservers)
        let d1 = subject.subscribe { _ in }
        let d2 = subject.subscribe { _ in }
        XCTAssertTrue(subject.hasObservers)
        d1.dispose()
        XCTAssertTrue(subject.hasObservers)
        d2.dispose()
        XCTAssertFalse(subject.hasObservers)
    }

    func testPublishSubjectErrorReachesLateSubscribers() {
        let subject = PublishSubject<Int>()
        subject.onError(testError)
        var received: [Event<Int>] = []
        _ = subject.subscribe { received.append($0) }
        XCTAssertEqual(received, [.error(testError)])
    }

    func testPublishSubjectDisposed() {
        let subject = PublishSubject<Int>()
        subject.dispose()
        XCTAssertTrue(subject.isDisposed)
        var received: [Event<Int>] = []
        _ = subject.subscribe { received.append($0) }
        XCTAssertEqual(received.count, 1)
        XCTAssertNotNil(received.first?.error)
    }

    // MARK: BehaviorSubject

    func testBehaviorSubjectGivesCurrentValueThenChanges() {
        let subject = BehaviorSubject(value: 0)
        var a: [Int] = []
        let d = subject.subscribe(onNext: { a.append($0) })
        subject.onNext(1)
        var b: [Int] = []
        let d2 = subject.subscribe(onNext: { b.append($0) })
        subject.onNext(2)
        XCTAssertEqual(a, [0, 1, 2])
        XCTAssertEqual(b, [1, 2])
        XCTAssertEqual(try subject.value(), 2)
        d.dispose()
        d2.dispose()
    }

    func testBehaviorSubjectValueThrowsAfterError() {
        let subject = BehaviorSubject(value: 1)
        subject.onError(testError)
        XCTAssertThrowsError(try subject.value()) { XCTAssertEqual($0 as? TestError, testError) }
        var received: [Event<Int>] = []
        _ = subject.subscribe { received.append($0) }
        XCTAssertEqual(received, [.error(testError)])
    }

    func testBehaviorSubjectAfterCompletionKeepsValueAndSendsCompleted() {
        let subject = BehaviorSubject(value: 1)
        subject.onCompleted()
        XCTAssertEqual(try subject.value(), 1)
        var received: [Event<Int>] = []
        _ = subject.subscribe { received.append($0) }
        XCTAssertEqual(received, [.completed])
    }

    func testBehaviorSubjectValueThrowsAfterDispose() {
        let subject = BehaviorSubject(value: 1)
        subject.dispose()
        XCTAssertThrowsError(try subject.value())
    }

    // MARK: ReplaySubject

    func testReplaySubjectReplaysBufferSize() {
        let subject = ReplaySubject<Int>.create(bufferSize: 2)
        subject.onNext(1)
        subject.onNext(2)
        subject.onNext(3)
        var received: [Int] = []
        let d = subject.subscribe(onNext: { received.append($0) })
        XCTAssertEqual(received, [2, 3])
        subject.onNext(4)
        XCTAssertEqual(received, [2, 3, 4])
        d.dispose()
    }

    func testReplaySubjectUnboundedReplaysAllThenTerminal() {
        let subject = ReplaySubject<Int>.createUnbounded()
        for i in 1 ... 5 { subject.onNext(i) }
        subject.onCompleted()
        var received: [Event<Int>] = []
        _ = subject.subscribe { received.append($0) }
        XCTAssertEqual(received, [.next(1), .next(2), .next(3), .next(4), .next(5), .completed])
    }

    func testReplaySubjectZeroBuffer() {
        let subject = ReplaySubject<Int>.create(bufferSize: 0)
        subject.onNext(1)
        var received: [Int] = []
        let d = subject.subscribe(onNext: { received.append($0) })
        subject.onNext(2)
        XCTAssertEqual(received, [2])
        XCTAssertTrue(subject.hasObservers)
        d.dispose()
    }

    // MARK: AsyncSubject

    func testAsyncSubjectEmitsLastOnCompletion() {
        let subject = AsyncSubject<Int>()
        var received: [Event<Int>] = []
        _ = subject.subscribe { received.append($0) }
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(received, [])
        subject.onCompleted()
        XCTAssertEqual(received, [.next(2), .completed])
        var late: [Event<Int>] = []
        _ = subject.subscribe { late.append($0) }
        XCTAssertEqual(late, [.next(2), .completed])
    }

    func testAsyncSubjectError() {
        let subject = AsyncSubject<Int>()
        subject.onNext(1)
        subject.onError(testError)
        var received: [Event<Int>] = []
        _ = subject.subscribe { received.append($0) }
        XCTAssertEqual(received, [.error(testError)])
    }
}
