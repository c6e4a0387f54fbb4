import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import Testing

@testable import Signalbox

/// Issue 25: "a write searchable before it is answered". A write's change can wait in this
/// replica's applier behind an earlier one: an import's batch still being applied to the index
/// (what `put-latency --during-import` met: `204` after the wait, found seconds later), or
/// another replica's commit the follower has yet to read. The latch here is such an earlier
/// change, committed to the store but not offered to the applier: every write after it waits
/// until the test offers it. A write is answered `204` only once it is searchable; if this
/// replica cannot apply it within `writes.applyWait`, `503` (the write durable, its number in
/// `Signalbox-Seq`), never a `204` for a document searches do not find yet.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct WriteVisibilityTests {
    static let key = "test-key"
    static let schema = #"{"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}]}"#

    let service: SignalboxService
    let store: SQLiteStore
    let client: TestClient

    init() async throws {
        try await self.init(applyWait: TestTime.scaled(seconds: 0.2))
    }

    init(applyWait: Double) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("visibility-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = Settings()
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        settings.apiKey = Self.key
        settings.writesApplyWait = applyWait
        // What bounded a write's wait before `writes.applyWait` (its 204 came after it): as short.
        settings.clusterReadWait = applyWait
        settings.indexDirectory = ""
        store = try SQLiteStore(path: settings.storePath)
        service = try SignalboxService(
            settings: settings, logger: Logger(label: "test"), base: [Document(id: "2988507", name: "Paris", rank: 2_100_000)],
            store: store, snapshot: try await store.snapshot())
        client = service.router.testClient()
    }

    func send(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> TestResponse {
        var fields: HTTPFields = [.authorization: "Bearer \(Self.key)"]
        if body != nil { fields[.contentType] = "application/json" }
        return try await client.execute(method, path, headerFields: fields, body: body.map { Array($0.utf8) } ?? [])
    }

    /// The ids a search answers with (`/collections/{name}/search` or the cities' `/search`).
    func ids(_ path: String) async throws -> [String] {
        let response = try await send(.get, path)
        #expect(response.status == .ok)
        let json = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let hits = try #require((json["hits"] ?? json["results"]) as? [[String: Any]])
        return hits.compactMap { ($0["id"] as? String) ?? ($0["document"] as? [String: Any])?["id"] as? String }
    }

    /// Commits `write` to the store without offering it to the applier: the latch every later write waits behind.
    func hold(_ write: StoreWrite) async throws -> ChangeApplier.Change {
        let sequence = try await store.commit(write)
        return ChangeApplier.Change(sequence: sequence, collection: write.collection, id: write.id, body: write.body)
    }

    func applied(_ sequence: Int64) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = service.applier.applied.asObservable().filter { $0 >= sequence }.take(1).subscribe(onCompleted: { done.resume() })
        }
    }

    @Test func aCollectionWriteIsNotAnsweredDoneBeforeItIsSearchable() async throws {
        #expect(try await send(.put, "/collections/shop", Self.schema).status == .created)
        let held = try await hold(.upsert(collection: "shop", id: "held", body: Data(#"{"sku": "held", "title": "held back"}"#.utf8)))

        let answer = try await send(.put, "/collections/shop/documents/new", #"{"title": "zebra crossing"}"#)
        let found = try await ids("/collections/shop/search?q=zebra")
        // Before the fix: 204 once the wait had passed, and the search right after it found nothing.
        #expect(answer.status != .noContent || found == ["new"], "answered \(answer.status), search found \(found)")
        #expect(answer.status == .serviceUnavailable && found.isEmpty)
        #expect(answer.headerFields[.retryAfter] != nil)
        #expect(answer.headerFields[WriteReceipt.sequenceField] == String(held.sequence + 1))

        // The latch let go: the durable write is applied after all, and found.
        service.applier.offer([held])
        await applied(held.sequence + 1)
        #expect(try await ids("/collections/shop/search?q=zebra") == ["new"])
    }

    @Test func aCityWriteIsNotAnsweredDoneBeforeItIsSearchable() async throws {
        let held = try await hold(.upsert(id: "1", body: Data(#"{"id": "1", "name": "Heldtown"}"#.utf8)))

        let answer = try await send(.put, "/documents/2", #"{"name": "Zebraville"}"#)
        let found = try await ids("/search?q=zebraville")
        #expect(answer.status != .noContent || found == ["2"], "answered \(answer.status), search found \(found)")
        #expect(answer.status == .serviceUnavailable && found.isEmpty)

        service.applier.offer([ChangeApplier.Change(
            sequence: held.sequence, id: held.id, document: Document(id: "1", name: "Heldtown"), body: held.body)])
        await applied(held.sequence + 1)
        #expect(try await ids("/search?q=zebraville") == ["2"])
    }
}
