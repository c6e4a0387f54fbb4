import Foundation
import Testing
@testable import Signalbox

@Suite struct DocumentStoreTests {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("signalbox-store-\(UUID().uuidString)/store.sqlite").path

    init() throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }

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

    @Test func aMissingDirectoryStopsTheStart() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-none-\(UUID().uuidString)/store.sqlite").path
        #expect(throws: StoreStartError.self) { try DocumentStore(path: missing) }
        do {
            _ = try DocumentStore(path: missing)
        } catch {
            #expect(error.reason == .directoryMissing && error.exitCode == 66 && error.description.contains(missing))
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func aFileThatIsNotADatabaseStopsTheStart() throws {
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try DocumentStore(path: path)
            Issue.record("a corrupt store opened")
        } catch {
            #expect(error.reason == .corrupt && error.exitCode == 65 && error.description.contains(path))
        }
    }
}
