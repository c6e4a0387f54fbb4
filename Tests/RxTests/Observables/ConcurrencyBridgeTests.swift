import Rx
import RxTest
import XCTest

/// async/await bridges: `values`, `value`, `AsyncSequence.asObservable()`, cancellation.
final class ConcurrencyBridgeTests: RxTestCase {
    func testObservableValuesYieldsElementsThenFinishes() async throws {
        var received: [Int] = []
        for try await value in Observable.of(1, 2, 3).values {
            received.append(value)
        }
        XCTAssertEqual(received, [1, 2, 3])
    }

    func testObservableValuesThrowsTheError() async {
        var received: [Int] = []
        do {
            for try await value in Observable<Int>.of(1).concat(Observable.error(testError)).values {
                received.append(value)
            }
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
        XCTAssertEqual(received, [1])
    }

    func testInfallibleAndDriverValues() async {
        var received: [Int] = []
        for await value in Infallible.of(4, 5).values {
            received.append(value)
        }
        XCTAssertEqual(received, [4, 5])
    }

    func testSingleMaybeCompletableValue() async throws {
        let one = try await Single.just(1).value
        XCTAssertEqual(one, 1)
        let none = try await Maybe<Int>.empty().value
        XCTAssertNil(none)
        let some = try await Maybe.just(2).value
        XCTAssertEqual(some, 2)
        try await Completable.empty().value
        do {
            _ = try await Single<Int>.error(testError).value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testCancellingTheTaskDisposesTheSubscription() async throws {
        let disposed = expectation(description: "disposed")
        let subscribed = expectation(description: "subscribed")
        let never = Single<Int>.create { _ in
            subscribed.fulfill()
            return Disposables.create { disposed.fulfill() }
        }
        let task = Task { try await never.value }
        await fulfillment(of: [subscribed], timeout: 5)
        task.cancel()
        await fulfillment(of: [disposed], timeout: 5)
        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError)
        }
    }

    func testSingleCreateWithAsyncWorkSucceedsOrFails() async throws {
        let value = try await Single<Int>.create { 6 * 7 }.value
        XCTAssertEqual(value, 42)
        do {
            _ = try await Single<Int>.create(detached: true) { throw testError }.value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, testError)
        }
    }

    func testDisposingASingleOfAsyncWorkCancelsTheTask() async {
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let (cancelled, cancelledContinuation) = AsyncStream.makeStream(of: Bool.self)
        let (never, neverContinuation) = AsyncStream.makeStream(of: Int.self)
        let single = Single<Int>.create {
            startedContinuation.yield()
            // Waits until cancelled (the stream ends then); no sleep decides the outcome.
            await withTaskCancellationHandler {
                for await _ in never {}
            } onCancel: {
                cancelledContinuation.yield(true)
                neverContinuation.finish()
            }
            return 0
        }
        let subscription = single.subscribe { _ in }
        var startedIterator = started.makeAsyncIterator()
        await startedIterator.next()
        subscription.dispose()
        var cancelledIterator = cancelled.makeAsyncIterator()
        let wasCancelled = await cancelledIterator.next()
        XCTAssertEqual(wasCancelled, true)
    }

    func testAsyncSequenceAsObservable() {
        let stream = AsyncStream<Int> { continuation in
            continuation.yield(1)
            continuation.yield(2)
            continuation.finish()
        }
        let done = expectation(description: "completed")
        let received = LockedLog<Int>()
        let subscription = stream.asObservable().subscribe(onNext: { received.append($0) }, onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(received.values, [1, 2])
    }
}
