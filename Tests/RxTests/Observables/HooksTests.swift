import Rx
import RxTest
import XCTest

/// An error no subscriber handles goes to `Hooks.defaultErrorHandler`.
final class HooksTests: RxTestCase {
    func testUnhandledErrorsAreReported() {
        let original = Hooks.defaultErrorHandler
        defer { Hooks.defaultErrorHandler = original }
        var reported: [String] = []
        Hooks.defaultErrorHandler = { _, error in reported.append("\(error)") }

        _ = Observable<Int>.error(testError).subscribe(onNext: { _ in })
        _ = Single<Int>.error(testError).subscribe(onSuccess: { _ in })
        _ = Maybe<Int>.error(testError).subscribe()
        _ = Completable.error(testError).subscribe()
        _ = Observable<Int>.error(testError).subscribe(onError: { _ in })
        XCTAssertEqual(reported, ["testError", "testError", "testError", "testError"])
    }
}
