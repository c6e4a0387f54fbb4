import Foundation
import Rx
import RxTest
import XCTest

/// Binder and the `.rx` namespace (RxSwift's Binder.swift and Reactive.swift).
final class BinderTests: RxTestCase {
    final class Label: ReactiveCompatible {
        var text = ""
        var count = 0
    }

    func testBinderAppliesElementsOnItsSchedulerWhileTheTargetLives() {
        let scheduler = TestScheduler(initialClock: 0)
        var label: Label? = Label()
        let binder = Binder(label!, scheduler: scheduler) { label, text in label.text = text }
        let source = scheduler.createHotObservable([.next(10, "a"), .next(20, "b"), .completed(30)])
        let subscription = source.bind(to: binder)
        scheduler.advanceTo(15)
        XCTAssertEqual(label?.text, "a")
        scheduler.advanceTo(30)
        XCTAssertEqual(label?.text, "b")
        // The target is held weakly: once it is gone, elements are dropped.
        weak let gone = label
        label = nil
        XCTAssertNil(gone)
        binder.on(.next("c"))
        scheduler.start()
        subscription.dispose()
    }

    func testReactiveKeyPathsAreBinders() {
        let scheduler = TestScheduler(initialClock: 0)
        let label = Label()
        let binder: Binder<String> = Binder(label, scheduler: scheduler) { $0.text = $1 }
        _ = Observable.of("x", "y").bind(to: binder)
        scheduler.start()
        XCTAssertEqual(label.text, "y")
        // `label.rx.count` binds to `label.count` on MainScheduler.instance.
        let done = expectation(description: "bound")
        _ = Observable.just(3).bind(to: label.rx.count)
        // Queued behind the binding on the same serial queue.
        let queued = MainScheduler.asyncInstance.schedule(()) { _ in
            done.fulfill()
            return Disposables.create()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(label.count, 3)
        queued.dispose()
    }

    func testReactiveIsAnExtensionPoint() {
        XCTAssertEqual(Label().rx.doubled(21), 42)
        XCTAssertTrue(Label.rx == Reactive<Label>.self)
        XCTAssertNotNil(NSObject().rx.base)
    }
}

extension Reactive where Base: BinderTests.Label {
    func doubled(_ value: Int) -> Int { value * 2 }
}
