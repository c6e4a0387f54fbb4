import Foundation
import Testing
@testable import Signalbox

@Suite struct DocumentStoreTests {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("signalbox-store-\(UUID().uuidString)/store.sqlite").path

    @Test func writesSurviveReopening() throws {
        do {
            let store = try DocumentStore(path: path)
            #expect(try store.lastSequence() == 0)
            #expect(try store.write(id: "1", body: Data(#"{"a":1}"#.utf8)) == 1)
            #expect(try store.write(id: "2", body: Data(#"{"b":2}"#.utf8)) == 2)
            #expect(try store.write(id: "1", body: nil) == 3)
        }
        let reopened = try DocumentStore(path: path)
        #expect(try reopened.changes() == [
            StoredChange(id: "2", body: Data(#"{"b":2}"#.utf8), sequence: 2),
            StoredChange(id: "1", body: nil, sequence: 3),
        ])
        #expect(try reopened.lastSequence() == 3)
        #expect(try reopened.integrityCheck())
    }
}
