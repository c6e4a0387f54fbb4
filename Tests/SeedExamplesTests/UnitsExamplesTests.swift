import Rx
import RxTest
import XCTest

/// Runs the seeds' Units examples (en, ja, ru) on virtual time and checks what the text
/// around them says: the beginner version sends a request per binding, the appropriate and
/// `Driver` versions one per query, and a failed request shows an empty result.
final class UnitsExamplesTests: SeedExamplesTestCase {
    typealias Request = UnitsHarness.Request

    /// The user types "r" at 100, "rx" at 105, "rxs" at 110 (one 300 ms throttle window) and
    /// `failing` at 200 ("fail" makes the request fail), "rxswift" at 300. One tick is 10 ms.
    /// The search field (a `ControlProperty`) delivers a tick after the typing, on the
    /// virtual scheduler, so a query reaches `throttle` at 1, 101, ...
    private func run(
        failing: String = "rxs!",
        _ example: (UnitsHarness) -> () -> Void
    ) -> (requests: [Request], label: [Recorded<Event<String?>>], rows: [Recorded<Event<[String?]>>]) {
        let harness = UnitsHarness()
        var recorded: (requests: [Request], label: [Recorded<Event<String?>>], rows: [Recorded<Event<[String?]>>]) = ([], [], [])
        // `ControlProperty` and the `Driver`s deliver on `SharingScheduler`'s scheduler: the
        // test's virtual one here, so everything runs on this thread, in virtual time.
        SharingScheduler.mock(scheduler: harness.scheduler) {
            let outputs = harness.recordOutputs()
            harness.typing([(100, "r"), (105, "rx"), (110, "rxs"), (200, failing), (300, "rxswift")])
            example(harness)()
            harness.scheduler.start()
            recorded = (harness.requests, outputs.label.events, outputs.rows.events)
        }
        harness.disposeBag = DisposeBag()
        return recorded
    }

    private func labels(_ entries: [(TestTime, String)]) -> [Recorded<Event<String?>>] {
        entries.map { .next($0.0, $0.1) }
    }

    // MARK: the beginner example: two requests per query, one per binding

    private let beginnerRequests = [
        Request(time: 1, query: ""), Request(time: 1, query: ""),
        Request(time: 101, query: "r"), Request(time: 101, query: "r"),
        Request(time: 131, query: "rxs"), Request(time: 131, query: "rxs"),
        Request(time: 201, query: "rxs!"), Request(time: 201, query: "rxs!"),
        Request(time: 301, query: "rxswift"), Request(time: 301, query: "rxswift"),
    ]

    private func assertBeginner(_ example: (UnitsHarness) -> () -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let result = run(example)
        XCTAssertEqual(result.requests, beginnerRequests, file: file, line: line)
        XCTAssertEqual(result.label, labels([(6, "2"), (106, "2"), (136, "2"), (206, "2"), (306, "2")]), file: file, line: line)
        XCTAssertEqual(result.rows.last, .next(306, ["rxswift 1", "rxswift 2"]), file: file, line: line)
    }

    func testUnitsEnBeginnerExampleRequestsOncePerBinding() {
        assertBeginner(UnitsHarness.unitsEnBeginnerExample)
    }

    func testUnitsJaBeginnerExampleRequestsOncePerBinding() {
        assertBeginner(UnitsHarness.unitsJaBeginnerExample)
    }

    func testTraitsRuBeginnerExampleRequestsOncePerBinding() {
        assertBeginner(UnitsHarness.traitsRuBeginnerExample)
    }

    // MARK: the appropriate example: one request per query, results on MainScheduler, errors → []

    private let sharedRequests = [
        Request(time: 1, query: ""), Request(time: 101, query: "r"), Request(time: 131, query: "rxs"),
        Request(time: 201, query: "fail"), Request(time: 301, query: "rxswift"),
    ]

    private func assertAppropriate(_ example: (UnitsHarness) -> () -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let result = run(failing: "fail", example)
        XCTAssertEqual(result.requests, sharedRequests, file: file, line: line)
        // `observeOn(MainScheduler.instance)` delivers a tick after the answer (at +5).
        XCTAssertEqual(result.label, labels([(7, "2"), (107, "2"), (137, "2"), (207, "0"), (307, "2")]), file: file, line: line)
        XCTAssertEqual(result.rows, [
            .next(7, [" 1", " 2"]), .next(107, ["r 1", "r 2"]), .next(137, ["rxs 1", "rxs 2"]),
            .next(207, []), .next(307, ["rxswift 1", "rxswift 2"]),
        ], file: file, line: line)
    }

    func testUnitsEnAppropriateExampleSharesRequestsAndHandlesErrors() {
        assertAppropriate(UnitsHarness.unitsEnAppropriateExample)
    }

    func testUnitsJaAppropriateExampleSharesRequestsAndHandlesErrors() {
        assertAppropriate(UnitsHarness.unitsJaAppropriateExample)
    }

    func testTraitsRuAppropriateExampleSharesRequestsAndHandlesErrors() {
        assertAppropriate(UnitsHarness.traitsRuAppropriateExample)
    }

    // MARK: the Driver example: the same guarantees from the compiler

    private func assertDriver(_ example: (UnitsHarness) -> () -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let result = run(failing: "fail", example)
        // One tick more than the `Observable` versions: RxCompat's `Driver.throttle(_:scheduler:)`
        // hops back to the Driver's scheduler after the timers (`asSharedSequence`); the answer
        // hops too (`asDriver(onErrorJustReturn:)`).
        XCTAssertEqual(result.requests, [
            Request(time: 2, query: ""), Request(time: 102, query: "r"), Request(time: 132, query: "rxs"),
            Request(time: 202, query: "fail"), Request(time: 302, query: "rxswift"),
        ], file: file, line: line)
        XCTAssertEqual(result.label, labels([(8, "2"), (108, "2"), (138, "2"), (208, "0"), (308, "2")]), file: file, line: line)
        XCTAssertEqual(result.rows.last, .next(308, ["rxswift 1", "rxswift 2"]), file: file, line: line)
    }

    func testUnitsEnDriverExample() {
        assertDriver(UnitsHarness.unitsEnDriverExample)
    }

    func testUnitsJaDriverExample() {
        assertDriver(UnitsHarness.unitsJaDriverExample)
    }

    func testTraitsRuDriverExample() {
        assertDriver(UnitsHarness.traitsRuDriverExample)
    }

    // MARK: "asDriver(onErrorJustReturn: []) is equivalent to following code"

    private func assertEquivalentToAsDriver(_ equivalent: @escaping (UnitsHarness) -> (Observable<[String]>, [String]) -> Observable<[String]>,
                                            file: StaticString = #filePath, line: UInt = #line) {
        let harness = UnitsHarness()
        let xs = harness.scheduler.createColdObservable([.next(10, ["a"]), .next(15, ["b"]), .error(20, UnitsHarness.FetchFailed())])
        let expected: [Recorded<Event<[String]>>] = [.next(211, ["a"]), .next(216, ["b"]), .next(221, []), .completed(221)]

        let spelledOut = harness.scheduler.start { equivalent(harness)(xs.asObservable(), []) }
        XCTAssertEqual(spelledOut.events, expected, file: file, line: line)

        let other = UnitsHarness()
        let ys = other.scheduler.createColdObservable([.next(10, ["a"]), .next(15, ["b"]), .error(20, UnitsHarness.FetchFailed())])
        SharingScheduler.mock(scheduler: other.scheduler) {
            let driver = other.scheduler.start { ys.asDriver(onErrorJustReturn: []) }
            XCTAssertEqual(driver.events, expected, file: file, line: line)
        }
    }

    func testUnitsEnSpelledOutAsDriverMatchesAsDriver() {
        assertEquivalentToAsDriver(UnitsHarness.unitsEnAsDriverEquivalent)
    }

    func testTraitsRuSpelledOutAsDriverMatchesAsDriver() {
        assertEquivalentToAsDriver(UnitsHarness.traitsRuAsDriverEquivalent)
    }
}
