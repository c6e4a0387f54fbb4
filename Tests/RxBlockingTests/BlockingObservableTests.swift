import Dispatch
import Rx
import RxBlocking
import XCTest

private struct TestError: Error, Equatable {}

final class BlockingObservableTests: XCTestCase {
    private var startResourceCount: Int32 = 0

    override func setUp() {
        super.setUp()
        startResourceCount = Resources.total
    }

    override func tearDown() {
        // Dispatch releases a finished work item's closure just after it runs: allow a moment.
        var attempts = 0
        while Resources.total != startResourceCount && attempts < 100 {
            Thread.sleep(forTimeInterval: 0.01)
            attempts += 1
        }
        XCTAssertEqual(Resources.total, startResourceCount, "Rx resources leaked by this test")
        super.tearDown()
    }

    func testToArrayFirstLast() throws {
        XCTAssertEqual(try Observable.of(1, 2, 3).toBlocking().toArray(), [1, 2, 3])
        XCTAssertEqual(try Observable.of(1, 2, 3).toBlocking().first(), 1)
        XCTAssertEqual(try Observable.of(1, 2, 3).toBlocking().last(), 3)
        XCTAssertNil(try Observable<Int>.empty().toBlocking().first())
    }

    func testFirstStopsAtTheFirstElementOfAnEndlessSequence() throws {
        XCTAssertEqual(try Observable.repeatElement(5).toBlocking().first(), 5)
    }

    func testSingle() throws {
        XCTAssertEqual(try Observable.just(1).toBlocking().single(), 1)
        XCTAssertThrowsError(try Observable<Int>.empty().toBlocking().single()) { error in
            guard case RxError.noElements = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Observable.of(1, 2).toBlocking().single()) { error in
            guard case RxError.moreThanOneElement = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try Observable.of(1, 2, 3).toBlocking().single { $0 == 2 }, 2)
    }

    func testErrorsAreThrown() {
        XCTAssertThrowsError(try Observable<Int>.error(TestError()).toBlocking().toArray()) { error in
            XCTAssertEqual(error as? TestError, TestError())
        }
    }

    func testMaterialize() {
        guard case .completed(let elements) = Observable.of(1, 2).toBlocking().materialize() else { return XCTFail() }
        XCTAssertEqual(elements, [1, 2])
        guard case .failed(let failedElements, let error) = Observable.just(1).concat(Observable.error(TestError())).toBlocking().materialize() else {
            return XCTFail()
        }
        XCTAssertEqual(failedElements, [1])
        XCTAssertEqual(error as? TestError, TestError())
    }

    func testElementsFromAnotherThread() throws {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "blocking-test")
        XCTAssertEqual(try Observable.of(1, 2, 3).observe(on: scheduler).toBlocking(timeout: 10).toArray(), [1, 2, 3])
    }

    func testTimeout() {
        guard case .failed(let elements, let error) = Observable<Int>.never().toBlocking(timeout: 0.05).materialize() else { return XCTFail() }
        XCTAssertEqual(elements, [])
        guard case RxError.timeout = error else { return XCTFail("\(error)") }
    }
}
