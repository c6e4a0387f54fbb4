import Base
import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import Testing

@testable import Signalbox

/// Issue 25: "a write searchable before it is answered", during a schema change. While the new
/// schema's index is built, the old one serves; a document that does not fit the old schema (a
/// field whose type the new one changed) cannot be in it, so its write is answered only once the
/// new index serves it (`503` after `writes.applyWait`, the write durable). Before, it was
/// answered `204` (a `PUT`) or `200` (an import) while searches did not find it, and a `DELETE`
/// of it was refused with `404`. The rebuild is held at its replay (the test's gate), over a
/// real server's sockets.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 2))))
struct RebuildVisibilityTests {
    static let key = CollectionEndpointsTests.key
    static let before = #"{"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}, {"name": "size", "type": "string"}]}"#
    /// `size` becomes a number: a document with `"size": 3` fits this schema, not the one before.
    static let after = #"{"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}, {"name": "size", "type": "number"}]}"#

    /// Where the rebuild is held: before each step of its replay, and once the new index serves.
    final class Gate: Sendable {
        private let reached = DispatchSemaphore(value: 0)
        private let proceed = DispatchSemaphore(value: 0)
        /// Set just before the rebuild is let go: an answer that sees it false came while held.
        let released = Locked(false)

        func step() {
            reached.signal()
            proceed.wait()
        }

        /// Waits, off the pool, until the rebuild reaches its next step.
        func reachedStep() async {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread { [reached] in
                    reached.wait()
                    done.resume()
                }.start()
            }
        }

        /// Lets the held rebuild replay and take over; returns once the new index serves.
        func release() async {
            released.withLock { $0 = true }
            proceed.signal()
            await reachedStep()  // swapped
            proceed.signal()
        }
    }

    let service: SignalboxService
    let gate = Gate()

    init() async throws {
        service = try await CollectionEndpointsTests.makeService {
            $0.writesApplyWait = TestTime.scaled(seconds: 1)
            $0.indexDirectory = ""
        }
    }

    static func send(
        _ client: TestClient, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil,
        contentType: String = "application/json"
    ) async throws -> TestResponse {
        var fields: HTTPFields = [.authorization: "Bearer \(key)"]
        if body != nil { fields[.contentType] = contentType }
        return try await client.execute(method, path, headerFields: fields, body: body.map { Array($0.utf8) } ?? [])
    }

    static func ids(_ client: TestClient, _ query: String) async throws -> [String] {
        let response = try await send(client, .get, "/collections/shop/search?q=\(query)")
        #expect(response.status == .ok)
        let json = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let hits = try #require(json["hits"] as? [[String: Any]])
        return hits.compactMap { $0["id"] as? String }.sorted()
    }

    /// Makes the collection `shop` under ``before`` with one document, replaces its schema by
    /// ``after``, and runs `body` while the rebuild is held (its new index built, not serving).
    func whileRebuilding(_ body: (TestClient) async throws -> Void) async throws {
        try await service.router.withTestClient(.live) { client in
            #expect(try await Self.send(client, .put, "/collections/shop", Self.before).status == .created)
            #expect(try await Self.send(client, .put, "/collections/shop/documents/old", #"{"title": "old sofa", "size": "big"}"#).status == .noContent)
            // The same collection and index, served with the gate on its rebuild.
            let catalog = service.collections.catalog
            let shop = try #require(catalog.named("shop"))
            catalog.serve(ServedCollection(name: "shop", schema: shop.schema, index: shop.index, replayStep: { [gate] _ in gate.step() }))
            #expect(try await Self.send(client, .put, "/collections/shop", Self.after).status == .ok)
            await gate.reachedStep()  // built; nothing replayed, the old index serves
            try await body(client)
        }
    }

    /// Starts a write that is to wait for the held rebuild, and returns once it is applied to the
    /// serving index (numbered `sequence`), with whether its answer came after the release.
    func startHeld(
        _ write: @escaping @Sendable () async throws -> TestResponse, numbered sequence: Int64
    ) async throws -> Task<(TestResponse, Bool), any Error> {
        let gate = self.gate
        let task = Task {
            let response = try await write()
            return (response, gate.released.withLock { $0 })
        }
        try await service.applier.applied(atLeast: sequence, within: .seconds(Int(TestTime.scaled(seconds: 30)))).value
        return task
    }

    @Test func aPutThatDoesNotFitTheOldSchemaIsAnsweredOnlyOnceSearchable() async throws {
        try await whileRebuilding { client in
            let answer = try await Self.send(client, .put, "/collections/shop/documents/new", #"{"title": "zebra", "size": 3}"#)
            let found = try await Self.ids(client, "zebra")
            // Before: 204, and the search right after it found nothing until the new index took over.
            #expect(answer.status != .noContent || found == ["new"], "answered \(answer.status), search found \(found)")
            #expect(answer.status == .serviceUnavailable && found.isEmpty)
            #expect(answer.headerFields[.retryAfter] != nil)
            let sequence = try #require(answer.headerFields[WriteReceipt.sequenceField].flatMap { Int64($0) })

            // A write that waits while the rebuild is held, answered once it is let go.
            let late = try await startHeld(
                { try await Self.send(client, .put, "/collections/shop/documents/late", #"{"title": "yak", "size": 4}"#) },
                numbered: sequence + 1)
            #expect(try await Self.ids(client, "yak").isEmpty)
            await gate.release()
            let (response, afterRelease) = try await late.value
            #expect(response.status == .noContent && afterRelease, "answered \(response.status), after the release: \(afterRelease)")
            #expect(try await Self.ids(client, "yak") == ["late"])
            #expect(try await Self.ids(client, "zebra") == ["new"])  // the durable write of the 503, served now
            #expect(try await Self.ids(client, "sofa").isEmpty)  // `size: "big"` fits the new schema no more
        }
    }

    @Test func aDeleteDuringARebuildIsServedAtOnceAndFindsWritesTheOldIndexCannotHold() async throws {
        try await whileRebuilding { client in
            // Fits both schemas: gone from the serving index at once.
            #expect(try await Self.ids(client, "sofa") == ["old"])
            #expect(try await Self.send(client, .delete, "/collections/shop/documents/old").status == .noContent)
            #expect(try await Self.ids(client, "sofa").isEmpty)
            // Stored (durable) though the old index cannot hold it: the delete finds it (was 404).
            #expect(try await Self.send(client, .put, "/collections/shop/documents/new", #"{"title": "zebra", "size": 3}"#).status == .serviceUnavailable)
            let deleted = try await Self.send(client, .delete, "/collections/shop/documents/new")
            #expect(deleted.status == .noContent, "answered \(deleted.status)")
            await gate.release()
            #expect(try await Self.ids(client, "zebra").isEmpty)
            #expect(try await Self.send(client, .get, "/collections/shop/documents/new").status == .notFound)
        }
    }

    @Test func anImportDuringARebuildIsAnsweredOnlyOnceSearchable() async throws {
        try await whileRebuilding { client in
            let lines = #"{"sku": "i1", "title": "ibex", "size": 5}"# + "\n" + #"{"sku": "i2", "title": "impala", "size": 6}"# + "\n"
            let answer = try await Self.send(client, .post, "/collections/shop/documents", lines, contentType: "application/x-ndjson")
            let found = try await Self.ids(client, "ibex")
            // Before: 200 {"created": 2}, and searches found neither until the new index took over.
            #expect(answer.status != .ok || found == ["i1"], "answered \(answer.status), search found \(found)")
            #expect(answer.status == .serviceUnavailable && found.isEmpty)
            let sequence = try #require(answer.headerFields[WriteReceipt.sequenceField].flatMap { Int64($0) })

            let more = #"{"sku": "i3", "title": "ibis", "size": 7}"# + "\n" + #"{"sku": "i4", "title": "impala calf", "size": 8}"# + "\n"
            let late = try await startHeld(
                { try await Self.send(client, .post, "/collections/shop/documents", more, contentType: "application/x-ndjson") },
                numbered: sequence + 2)
            #expect(try await Self.ids(client, "ibis").isEmpty)
            await gate.release()
            let (response, afterRelease) = try await late.value
            #expect(response.status == .ok && afterRelease, "answered \(response.status), after the release: \(afterRelease)")
            let report = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(report["created"] as? Int == 2 && report["failed"] as? Int == 0, "\(report)")
            #expect(try await Self.ids(client, "ibis") == ["i3"])
            #expect(try await Self.ids(client, "impala") == ["i2", "i4"])
        }
    }
}
