import Foundation
import Testing
@testable import Signalbox

/// Keeps the README's settings table true. Run with SIGNALBOX_UPDATE_DOCS=1 to rewrite it.
@Suite struct DocumentationTests {
    @Test func readmeSettingsTableIsCurrent() throws {
        let url = SettingsTests.root.appendingPathComponent("README.md")
        let readme = try String(contentsOf: url, encoding: .utf8)
        let start = "<!-- settings-table:start -->\n", end = "<!-- settings-table:end -->"
        let table = SettingsReference.markdownTable + "\n"
        guard let open = readme.range(of: start), let close = readme.range(of: end) else {
            Issue.record("README.md lacks the settings-table markers")
            return
        }
        let current = String(readme[open.upperBound..<close.lowerBound])
        if current != table, ProcessInfo.processInfo.environment["SIGNALBOX_UPDATE_DOCS"] == "1" {
            try (String(readme[..<open.upperBound]) + table + String(readme[close.lowerBound...]))
                .write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(current == table, "README settings table is stale: run SIGNALBOX_UPDATE_DOCS=1 swift test --filter DocumentationTests")
    }
}
