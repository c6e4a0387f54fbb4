import Base
import Dispatch
import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import Testing

@testable import Signalbox

/// An import's batch is indexed before it is committed, off the writer lock and the applier
/// (issue 25: single `PUT`s waited 0.8-2.6 s behind each batch's build during a large import):
/// a write made meanwhile is answered, searchable, while the batch is still being indexed, and
/// the import then loses none of its documents.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct ImportBatchPrepareTests {
    static let key = "test-key"
    static let schema = #"{"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}]}"#

    /// Holds the first batch prepared until the test lets it go; tells the test it is held.
    final class Gate: Sendable {
        let proceed = DispatchSemaphore(value: 0)
        let reached: AsyncStream<Void>
        private let reachedContinuation: AsyncStream<Void>.Continuation
        private let held = Locked(false)

        init() {
            (reached, reachedContinuation) = AsyncStream<Void>.makeStream()
        }

        /// On the preparing queue (not the pool): waits there the first time.
        func step() {
            guard held.withLock({ held in defer { held = true }; return !held }) else { return }
            reachedContinuation.yield()
            proceed.wait()
        }
    }

    static func send(_ client: TestClient, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, type: String = "application/json") async throws -> TestResponse {
        var fields: HTTPFields = [.authorization: "Bearer \(Self.key)"]
        if body != nil { fields[.contentType] = type }
        return try await client.execute(method, path, headerFields: fields, body: body.map { Array($0.utf8) } ?? [])
    }

    static func total(_ response: TestResponse) throws -> Int {
        let json = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return try #require(json["total"] as? Int)
    }

    @Test func aWriteIsAnsweredSearchableWhileAnImportBatchIsBeingIndexed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prepare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = Settings()
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        settings.apiKey = Self.key
        settings.indexDirectory = ""
        settings.importBatchSize = 1_024
        // Short: a write held behind the batch would be answered 503 (a failure here), not hang the test.
        settings.writesApplyWait = TestTime.scaled(seconds: 2)
        let store = try SQLiteStore(path: settings.storePath)
        let service = try SignalboxService(
            settings: settings, logger: Logger(label: "test"), base: [Document(id: "2988507", name: "Paris", rank: 2_100_000)], store: store, snapshot: try await store.snapshot())
        let client = service.router.testClient()
        #expect(try await Self.send(client, .put, "/collections/shop", Self.schema).status == .created)
        // The same collection and index, with the gate where its import batches are indexed.
        let served = try #require(service.collections.catalog.named("shop"))
        let gate = Gate()
        service.collections.catalog.serve(ServedCollection(
            name: "shop", schema: served.schema, index: served.index, preparingStep: { gate.step() }))

        let imported = 2 * 1_024
        let lines = (0..<imported).map { #"{"sku": "i\#($0)", "title": "imported widget \#($0)"}"# }.joined(separator: "\n")
        let importing = Task { try await Self.send(client, .post, "/collections/shop/documents", lines, type: "application/x-ndjson") }
        for await _ in gate.reached { break }  // the first batch is being indexed, not yet committed

        let put = try await Self.send(client, .put, "/collections/shop/documents/solo", #"{"title": "lonely zebra"}"#)
        #expect(put.status == .noContent)
        #expect(try Self.total(try await Self.send(client, .get, "/collections/shop/search?q=zebra")) == 1)

        gate.proceed.signal()
        let answer = try await importing.value
        #expect(answer.status == .ok)
        let report = try #require(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        #expect(report["created"] as? Int == imported && report["failed"] as? Int == 0, "\(report)")
        // Searchable once answered, every one of them; the PUT's document kept.
        #expect(try Self.total(try await Self.send(client, .get, "/collections/shop/search?q=widget&limit=1")) == imported)
        #expect(try Self.total(try await Self.send(client, .get, "/collections/shop/search?q=&limit=1")) == imported + 1)
        #expect(service.collections.catalog.named("shop")?.index.document(id: "i2047") != nil)
    }

    /// A run the applier takes at once may hold writes numbered before and after a prepared batch,
    /// one of them replacing a batch's document: each is applied in order around the batch's swap.
    @Test func writesAroundAPreparedBatchInOneRunAreAppliedInOrder() throws {
        let schema = try CollectionSchema.decode(json: Array(Self.schema.utf8))
        let decoder = CollectionDocumentDecoder(schema: schema)
        func document(_ id: String, _ title: String) throws -> CollectionDocument {
            try decoder.decode(Array(#"{"sku": "\#(id)", "title": "\#(title)"}"#.utf8))
        }
        var configuration = CollectionIndex.Configuration()
        configuration.recentSegmentDocuments = 4
        let collection = ServedCollection(name: "shop", schema: schema, index: CollectionIndex(schema: schema, configuration: configuration))
        let batch = try (0..<6).map { try document("b\($0)", "batch widget \($0)") }
        let prepared = collection.index.prepare(batch)
        collection.expect(prepared, from: 11)
        let run: [CollectionChange] = try [.upsert(document("before", "before widget"))] + batch.map(CollectionChange.upsert)
            + [.upsert(document("b3", "replaced gadget")), .delete(id: "b4")]
        collection.apply(run, through: 18)  // numbers 10 (before), 11-16 (the batch), 17, 18

        let index = collection.index
        #expect(index.serves(prepared))
        #expect(index.count == 6 && index.sequence == 18)
        #expect(index.document(id: "b3")?.values[0] == .string("replaced gadget"))
        #expect(index.document(id: "b4") == nil)
        #expect(Set(index.search(CollectionQuery(text: "widget", limit: 10)).hits.map(\.id)) == ["before", "b0", "b1", "b2", "b5"])
    }
}
