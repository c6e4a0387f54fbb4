import Dispatch
import Rx
import RxTest
import Synchronization
import XCTest

final class DisposableTests: RxTestCase {
    func testAnonymousDisposableRunsItsActionOnce() {
        let count = Atomic<Int>(0)
        let disposable = Disposables.create { count.add(1, ordering: .relaxed) }
        XCTAssertFalse(disposable.isDisposed)
        disposable.dispose()
        disposable.dispose()
        XCTAssertTrue(disposable.isDisposed)
        XCTAssertEqual(count.load(ordering: .relaxed), 1)
    }

    func testAnonymousDisposableRunsOnceWhenDisposedFromManyThreads() {
        for _ in 0 ..< 200 {
            let count = Atomic<Int>(0)
            let disposable = Disposables.create { count.add(1, ordering: .relaxed) }
            DispatchQueue.concurrentPerform(iterations: 8) { _ in disposable.dispose() }
            XCTAssertEqual(count.load(ordering: .relaxed), 1)
        }
    }

    func testBinaryAndTernaryDisposablesDisposeAll() {
        let count = Atomic<Int>(0)
        let a = Disposables.create { count.add(1, ordering: .relaxed) }
        let b = Disposables.create { count.add(10, ordering: .relaxed) }
        let c = Disposables.create { count.add(100, ordering: .relaxed) }
        let two = Disposables.create(a, b)
        two.dispose()
        two.dispose()
        XCTAssertEqual(count.load(ordering: .relaxed), 11)
        let three = Disposables.create(Disposables.create(), c, Disposables.create())
        XCTAssertFalse(three.isDisposed)
        three.dispose()
        XCTAssertTrue(three.isDisposed)
        XCTAssertEqual(count.load(ordering: .relaxed), 111)
    }

    func testCompositeDisposable() {
        var log: [String] = []
        let composite = CompositeDisposable()
        let key1 = composite.insert(Disposables.create { log.append("1") })
        _ = composite.insert(Disposables.create { log.append("2") })
        XCTAssertEqual(composite.count, 2)
        composite.remove(for: key1!)
        XCTAssertEqual(log, ["1"])
        XCTAssertEqual(composite.count, 1)
        composite.dispose()
        XCTAssertEqual(log, ["1", "2"])
        XCTAssertTrue(composite.isDisposed)
        // Inserting after disposal disposes at once and returns no key.
        XCTAssertNil(composite.insert(Disposables.create { log.append("3") }))
        XCTAssertEqual(log, ["1", "2", "3"])
    }

    func testSerialDisposableDisposesPreviousAndLaterOnes() {
        var log: [String] = []
        let serial = SerialDisposable()
        serial.disposable = Disposables.create { log.append("a") }
        serial.disposable = Disposables.create { log.append("b") }
        XCTAssertEqual(log, ["a"])
        serial.dispose()
        XCTAssertEqual(log, ["a", "b"])
        serial.disposable = Disposables.create { log.append("c") }
        XCTAssertEqual(log, ["a", "b", "c"])
        XCTAssertTrue(serial.isDisposed)
    }

    func testSingleAssignmentDisposable() {
        var log: [String] = []
        let first = SingleAssignmentDisposable()
        first.setDisposable(Disposables.create { log.append("set first") })
        first.dispose()
        first.dispose()
        let second = SingleAssignmentDisposable()
        second.dispose()
        XCTAssertTrue(second.isDisposed)
        second.setDisposable(Disposables.create { log.append("disposed on set") })
        XCTAssertEqual(log, ["set first", "disposed on set"])
    }

    func testBooleanDisposable() {
        let disposable = BooleanDisposable()
        XCTAssertFalse(disposable.isDisposed)
        disposable.dispose()
        XCTAssertTrue(disposable.isDisposed)
        XCTAssertTrue(BooleanDisposable(isDisposed: true).isDisposed)
    }

    func testDisposeBagDisposesEverythingOnDeinit() {
        var log: [Int] = []
        var bag: DisposeBag? = DisposeBag()
        Disposables.create { log.append(1) }.disposed(by: bag!)
        bag!.insert(Disposables.create { log.append(2) }, Disposables.create { log.append(3) })
        XCTAssertEqual(log, [])
        bag = nil
        XCTAssertEqual(log, [1, 2, 3])
    }

    func testDisposeBagEndsSubscriptions() {
        let subject = PublishSubject<Int>()
        var received: [Int] = []
        var bag: DisposeBag? = DisposeBag()
        subject.subscribe(onNext: { received.append($0) }).disposed(by: bag!)
        subject.onNext(1)
        bag = nil
        subject.onNext(2)
        XCTAssertEqual(received, [1])
        XCTAssertFalse(subject.hasObservers)
    }

    func testScheduledDisposableDisposesOnItsScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        var disposedAt: [Int] = []
        scheduler.scheduleAt(100) {
            let disposable = ScheduledDisposable(scheduler: scheduler, disposable: Disposables.create { disposedAt.append(scheduler.clock) })
            disposable.dispose()
            XCTAssertEqual(disposedAt, [])
        }
        scheduler.start()
        XCTAssertEqual(disposedAt, [101])
    }

    func testSubscribeOnDisposedCallsOnDisposedOnceAfterTerminal() {
        var log: [String] = []
        let subscription = Observable.of(1, 2).subscribe(
            onNext: { log.append("next \($0)") },
            onError: { _ in log.append("error") },
            onCompleted: { log.append("completed") },
            onDisposed: { log.append("disposed") }
        )
        subscription.dispose()
        XCTAssertEqual(log, ["next 1", "next 2", "completed", "disposed"])
    }

    func testSubscribeOnDisposedRunsWhenDisposedBeforeAnyEvent() {
        var log: [String] = []
        let subscription = Observable<Int>.never().subscribe(onDisposed: { log.append("disposed") })
        XCTAssertEqual(log, [])
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(log, ["disposed"])
    }

    func testNoEventAfterDisposal() {
        let subject = PublishSubject<Int>()
        var received: [Event<Int>] = []
        let subscription = subject.map { $0 * 2 }.subscribe { received.append($0) }
        subject.onNext(1)
        subscription.dispose()
        subject.onNext(2)
        subject.onCompleted()
        XCTAssertEqual(received, [.next(2)])
    }
}
