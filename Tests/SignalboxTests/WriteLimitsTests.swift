import Base
import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Rx
import Testing
@testable import Signalbox

@Suite struct WriteLimitsTests {
    final class FakeClock: Sendable {
        let nanoseconds = Locked<UInt64>(1_000_000_000)
        func advance(seconds: Double) { nanoseconds.withLock { $0 += UInt64(seconds * 1e9) } }
    }

    @Test func aKeysBucketAllowsItsBurstThenItsRate() throws {
        let clock = FakeClock()
        let limiter = WriteRateLimiter(now: { clock.nanoseconds.withLock { $0 } })
        for _ in 0..<3 { try limiter.take("a", ratePerSecond: 2, burst: 3) }
        do {
            try limiter.take("a", ratePerSecond: 2, burst: 3)
            Issue.record("the fourth write at once was allowed")
        } catch {
            #expect(error.status.code == 429)
            #expect(error.headerFields[.retryAfter] == "1")
        }
        try limiter.take("b", ratePerSecond: 2, burst: 3)  // another key has its own bucket
        clock.advance(seconds: 0.5)
        try limiter.take("a", ratePerSecond: 2, burst: 3)  // one token back after 1/rate
        #expect(throws: HTTPError.self) { try limiter.take("a", ratePerSecond: 2, burst: 3) }
        for _ in 0..<100 { try limiter.take("a", ratePerSecond: 0, burst: 3) }  // rate 0: no limit
    }

    @Test func aNewLiveQueryBeyondTheBoundGets503AndExistingOnesGoOn() throws {
        let limit = LiveQueryLimit()
        try limit.register("paris", maxQueries: 2)
        try limit.register("berlin", maxQueries: 2)
        try limit.register("paris", maxQueries: 2)  // a query already streamed
        do {
            try limit.register("rome", maxQueries: 2)
            Issue.record("a third distinct query was accepted")
        } catch {
            #expect(error.status.code == 503)
            #expect(error.headerFields[.retryAfter] != nil)
        }
        limit.release("berlin")
        try limit.register("rome", maxQueries: 2)
        limit.release("paris")
        #expect(limit.count == 2)
    }

    @Test func everyConfiguredKeyWritesAndNoOtherDoes() throws {
        var settings = Settings()
        settings.apiKeys = ["old-key", "new-key"]
        let access = Access(settings: BehaviorRelay(value: settings), registry: KeyRegistry(), secrets: nil, isPublic: { _ in false })
        func grant(_ key: String) throws(HTTPError) -> Grant {
            try access.grant(
                Request.test(.put, "/documents/1", headerFields: [.authorization: "Bearer \(key)"]), .documentsWrite, collection: "cities")
        }
        #expect(try grant("old-key").rateKey == "admin:old-key")
        #expect(try grant("new-key").rateKey == "admin:new-key")
        #expect(throws: HTTPError.self) { try grant("other") }
        #expect(throws: HTTPError.self) { try grant("new-ke") }
        // A key followed by 256 more bytes once compared equal (the length difference was truncated to a byte).
        #expect(throws: HTTPError.self) { try grant("new-key" + String(repeating: "x", count: 256)) }
    }

    @Test func keysAreParsedFromListsAndFiles() throws {
        #expect(try APIKeys.parse("a,b c\n# comment\n\n  d  \n", source: "t") == ["a", "b", "c", "d"])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        try "# rotation\nfirst\nsecond\n".write(toFile: path, atomically: true, encoding: .utf8)
        let file = try APIKeysFile(path: path)
        #expect(file.keys == ["first", "second"])
        #expect(file.description == path)  // never the keys
        var settings = Settings()
        settings.apiKey = "single"
        settings.apiKeys = ["x", "y"]
        settings.apiKeysFile = file
        #expect(APIKeys.all(settings) == ["single", "x", "y", "first", "second"])
        #expect(throws: SettingsError.self) { try APIKeysFile(path: path + ".missing") }
    }
}
