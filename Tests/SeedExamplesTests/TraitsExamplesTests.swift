import Rx
import XCTest

/// Runs `traits-ru.txt`'s `Completable` and `Maybe` examples and checks what they print.
/// (`getRepo` and its subscriptions are compiled only: they call GitHub.)
final class TraitsExamplesTests: SeedExamplesTestCase {
    func testCompletableExampleReportsSuccess() {
        let harness = TraitsHarness()
        harness.subscribeToCacheWithSwitch()
        harness.subscribeToCacheWithHandlers()
        XCTAssertEqual(harness.printed, ["Completed with no error", "Completed with no error"])
    }

    func testCompletableExampleReportsFailure() {
        let harness = TraitsHarness()
        harness.cachingSucceeds = false
        harness.subscribeToCacheWithSwitch()
        harness.subscribeToCacheWithHandlers()
        let line = "Completed with an error: \(TraitsHarness.CacheError.failedCaching.localizedDescription)"
        XCTAssertEqual(harness.printed, [line, line])
    }

    /// The seed calls `.success`, `.completed` and `.error` in a row: a `Maybe` keeps the first.
    func testMaybeExampleKeepsTheFirstEvent() {
        let harness = TraitsHarness()
        harness.subscribeToStringWithSwitch()
        harness.subscribeToStringWithHandlers()
        XCTAssertEqual(harness.printed, ["Completed with element RxSwift", "Completed with element RxSwift"])
    }
}
