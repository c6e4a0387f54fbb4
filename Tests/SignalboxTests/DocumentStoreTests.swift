import Foundation
import Testing
@testable import Signalbox

@Suite struct SQLiteStoreTests {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("signalbox-store-\(UUID().uuidString)/store.sqlite").path

    init() throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }

    @Test func writesSurviveReopening() async throws {
        let epoch: String
        do {
            let store = try SQLiteStore(path: path)
            let empty = try await store.snapshot()
            #expect(empty.head == 0 && empty.documents.isEmpty)
            epoch = empty.epoch
            #expect(try await store.commit(.upsert(id: "1", body: Data(#"{"a":1}"#.utf8))) == 1)
            #expect(try await store.commit(.upsert(id: "2", body: Data(#"{"b":2}"#.utf8))) == 2)
            #expect(try await store.commit(.delete(id: "1", inBaseData: false)) == 3)
        }
        let reopened = try SQLiteStore(path: path)
        let snapshot = try await reopened.snapshot()
        #expect(snapshot.documents == [
            StoredChange(id: "2", body: Data(#"{"b":2}"#.utf8), sequence: 2),
            StoredChange(id: "1", body: nil, sequence: 3),
        ])
        #expect(snapshot.head == 3)
        #expect(snapshot.epoch == epoch && !epoch.isEmpty)
        #expect(try reopened.integrityCheck())
    }

    /// Issue 27: a restarted server replays what a resuming client missed from the change log.
    @Test func theChangeLogKeepsTheNewestChangesAcrossReopening() async throws {
        do {
            let store = try SQLiteStore(path: path, history: 2)
            for id in ["a", "b", "c"] { _ = try await store.commit(.upsert(id: id, body: Data(#"{"x":1}"#.utf8))) }
            _ = try await store.commit(.delete(id: "a", inBaseData: false))
        }
        let snapshot = try await SQLiteStore(path: path, history: 2).snapshot()
        #expect(snapshot.recentChanges == [
            StoredChange(id: "c", body: Data(#"{"x":1}"#.utf8), sequence: 3),
            StoredChange(id: "a", body: nil, sequence: 4),
        ])
        #expect(snapshot.head == 4)
    }

    @Test func deletingWhatDoesNotExistIsNotFoundAndTakesNoSequenceNumber() async throws {
        let store = try SQLiteStore(path: path)
        await #expect(throws: DocumentNotFound.self) { try await store.commit(.delete(id: "x", inBaseData: false)) }
        #expect(try await store.commit(.delete(id: "base", inBaseData: true)) == 1)
        await #expect(throws: DocumentNotFound.self) { try await store.commit(.delete(id: "base", inBaseData: true)) }
        #expect(try await store.commit(.upsert(id: "x", body: Data("{}".utf8))) == 2)
    }

    @Test func aMissingDirectoryStopsTheStart() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-none-\(UUID().uuidString)/store.sqlite").path
        #expect(throws: StoreStartError.self) { try SQLiteStore(path: missing) }
        do {
            _ = try SQLiteStore(path: missing)
        } catch {
            #expect(error.reason == .directoryMissing && error.exitCode == 66 && error.description.contains(missing))
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func aFileThatIsNotADatabaseStopsTheStart() throws {
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("a corrupt store opened")
        } catch {
            #expect(error.reason == .corrupt && error.exitCode == 65 && error.description.contains(path))
        }
    }
}
