import Rx
import XCTest

/// Checks that every test leaves `Resources.total` where it found it (as `RxTests` does).
class SeedExamplesTestCase: XCTestCase {
    private var startResourceCount: Int32 = 0

    override func setUp() {
        super.setUp()
        startResourceCount = Resources.total
    }

    override func tearDown() {
        // Everything here runs on virtual time on the test's thread: nothing is left to wait for.
        XCTAssertEqual(Resources.total, startResourceCount, "Rx resources leaked by this test")
        super.tearDown()
    }
}
