import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Rx
import Testing

@testable import Signalbox

/// Read-your-writes across a schema change (issue 25 with 27): a read with `Signalbox-Min-Seq: N`
/// sees the effect of change N. A document written while a collection's new index is built that
/// only the new schema fits is applied (N is) but not served until that index takes over, so such
/// a read waits for it (within `cluster.readWait`), else `503` as for a change not applied yet.
/// Before, it was answered at once without the document: on another replica, the client that had
/// the write's number could not find it. On SQLite the same wait applies on the writer's replica
/// (its `PUT` answered `503` with the number); over a real server's sockets, the rebuild held.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 2))))
struct RebuildReadYourWritesTests {
    typealias Visibility = RebuildVisibilityTests

    static func search(_ client: TestClient, _ path: String, minimumSequence: String) async throws -> TestResponse {
        try await client.execute(
            .get, path, headerFields: [MinimumSequenceGate.field: minimumSequence, .authorization: "Bearer \(Visibility.key)"])
    }

    static func ids(_ response: TestResponse) throws -> [String] {
        let json = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
        return try #require(json["hits"] as? [[String: Any]]).compactMap { $0["id"] as? String }.sorted()
    }

    /// Sets `cluster.readWait` on the running service.
    static func setReadWait(_ service: SignalboxService, seconds: Double) async throws {
        var settings = try await service.configuration.asObservable().take(1).asSingle().value
        settings.clusterReadWait = seconds
        service.configuration.onNext(settings)
    }

    /// Polls until one more request than `before` has waited for `collection`'s new index (nothing
    /// to await from outside).
    static func untilARead(waitsFor collection: ServedCollection, before: Int) async throws {
        for _ in 0..<Int(TestTime.scaled(seconds: 30) * 50) {
            if collection.waitingForNewIndex > before { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no read waited for the new index")
    }

    @Test func aReadAskingForAWriteOnlyTheNewIndexHoldsWaitsUntilItServes() async throws {
        let rebuild = try await Visibility()
        try await rebuild.whileRebuilding { client in
            let write = try await Visibility.send(client, .put, "/collections/shop/documents/new", #"{"title": "zebra", "size": 3}"#)
            #expect(write.status == .serviceUnavailable)
            let sequence = try #require(write.headerFields[WriteReceipt.sequenceField])
            #expect(rebuild.service.applier.applied.value >= Int64(sequence) ?? .max)  // applied: only its index is missing

            // Within the short wait of this service (0.2 s): refused, as a change not applied yet.
            let early = try await Self.search(client, "/collections/shop/search?q=zebra", minimumSequence: sequence)
            // Before: 200 without the document it asked for.
            #expect(early.status == .serviceUnavailable, "answered \(early.status): \(early.text)")
            #expect(early.headerFields[.retryAfter] != nil)

            // With time to wait: held until the new index takes over, then answered with the document.
            try await Self.setReadWait(rebuild.service, seconds: TestTime.scaled(seconds: 30))
            let gate = rebuild.gate
            let shop = try #require(rebuild.service.collections.catalog.named("shop"))
            let waiting = shop.waitingForNewIndex
            let held = Task {
                let response = try await Self.search(client, "/collections/shop/search?q=zebra", minimumSequence: sequence)
                return (response, gate.released.withLock { $0 })
            }
            try await Self.untilARead(waitsFor: shop, before: waiting)
            // Reads of what the rebuild does not hold back go at once: the cities, and reads asking for nothing.
            #expect(try await Self.search(client, "/search?q=paris", minimumSequence: sequence).status == .ok)
            #expect(try await Visibility.ids(client, "zebra").isEmpty)
            await gate.release()
            let (late, afterRelease) = try await held.value
            #expect(late.status == .ok && afterRelease, "answered \(late.status), after the release: \(afterRelease)")
            #expect(try Self.ids(late) == ["new"])
        }
    }
}
