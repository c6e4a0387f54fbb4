import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import Testing

@testable import Signalbox

/// Issue 25: the events of a batch applied during a schema change carry each document as it was
/// before the change, also when some document of the batch does not fit the serving (old) index.
/// A tenant's `/events` view judges a change on the document before and after it: one that leaves
/// its filter becomes `document.deleted`. Before, such a batch's index write reported fewer
/// outcomes than changes, every event of the batch lost its document before, and the tenant never
/// heard that those documents left. Over a real server's sockets, the rebuild held at its replay.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 2))))
struct RebuildEventsTests {
    typealias Visibility = RebuildVisibilityTests
    static let key = CollectionEndpointsTests.key
    static let before = """
        {"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}, {"name": "category", "type": "string"}, \
        {"name": "size", "type": "string"}]}
        """
    /// `size` becomes a number: a document with `"size": 3` fits this schema, not the one before.
    static let after = """
        {"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}, {"name": "category", "type": "string"}, \
        {"name": "size", "type": "number"}]}
        """

    let service: SignalboxService
    let gate = Visibility.Gate()

    init() async throws {
        service = try await CollectionEndpointsTests.makeService {
            $0.writesApplyWait = TestTime.scaled(seconds: 30)
            $0.indexDirectory = ""
            $0.keysMasterSecret = "a master secret of enough bytes"
        }
    }

    /// A tenant token whose rule on `shop` is `category = a`.
    static func tenantToken(_ client: TestClient) async throws -> String {
        let made = try await Visibility.send(client, .post, "/keys", #"{"name": "t", "actions": ["search", "events"], "collections": ["shop"]}"#)
        #expect(made.status == .created, "\(made.text)")
        let key = try #require(JSONSerialization.jsonObject(with: Data(made.body)) as? [String: Any])
        let claims: [String: Any] = ["apiKeyId": try #require(key["id"] as? String), "searchRules": ["shop": ["filter": "category = a"]]]
        return try TenantTokenSigner.sign(claims, secret: try #require(key["key"] as? String))
    }

    @Test func aBatchWithADocumentTheOldIndexCannotHoldStillTellsATenantWhatLeftItsFilter() async throws {
        try await service.router.withTestClient(.live) { client in
            #expect(try await Visibility.send(client, .put, "/collections/shop", Self.before).status == .created)
            for (sku, title) in [("m", "mover"), ("u", "unfit")] {
                let put = try await Visibility.send(client, .put, "/collections/shop/documents/\(sku)", #"{"title": "\#(title)", "category": "a"}"#)
                #expect(put.status == .noContent)
            }
            let token = try await Self.tenantToken(client)
            let stream = try await client.stream("/events?token=\(token)")
            #expect(stream.head.status == .ok)
            _ = try #require(try await stream.next())  // the position

            // The same collection and index, served with the gate on its rebuild.
            let catalog = service.collections.catalog
            let shop = try #require(catalog.named("shop"))
            catalog.serve(ServedCollection(name: "shop", schema: shop.schema, index: shop.index, replayStep: { [gate] _ in gate.step() }))
            #expect(try await Visibility.send(client, .put, "/collections/shop", Self.after).status == .ok)
            await gate.reachedStep()  // built; nothing replayed, the old index serves

            // One batch: `m` leaves the filter (fits the old schema), `u` leaves it with a document
            // the old index cannot hold, `n` enters with one. The import waits for the new index.
            let lines = [
                #"{"sku": "m", "title": "mover", "category": "b"}"#,
                #"{"sku": "u", "title": "unfit", "category": "b", "size": 3}"#,
                #"{"sku": "n", "title": "newcomer", "category": "a", "size": 4}"#,
            ].joined(separator: "\n") + "\n"
            let head = service.applier.applied.value
            let gate = self.gate
            let held = Task {
                let response = try await Visibility.send(client, .post, "/collections/shop/documents", lines, contentType: "application/x-ndjson")
                return (response, gate.released.withLock { $0 })
            }
            try await service.applier.applied(atLeast: head + 3, within: .seconds(Int(TestTime.scaled(seconds: 30)))).value
            // A later write inside the filter that fits both: its event closes what the tenant is sent.
            #expect(try await Visibility.send(client, .put, "/collections/shop/documents/z", #"{"title": "zed", "category": "a"}"#).status == .noContent)

            var seen: [String] = []
            while let event = try await stream.next() {
                let data = try #require(JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any], "\(event)")
                let id = data["id"] as? String  // none for a collection's change
                seen.append("\(event.event ?? "") \(id ?? data["collection"] as? String ?? "")")
                if id == "z" { break }
            }
            // Before: `m` and `u` left the filter unnoticed (no `document.deleted` for them).
            #expect(
                seen == ["collection.replaced shop", "document.deleted m", "document.deleted u", "document.upserted n", "document.upserted z"],
                "\(seen)")

            await gate.release()
            let (response, afterRelease) = try await held.value
            #expect(response.status == .ok && afterRelease, "answered \(response.status), after the release: \(afterRelease)")
            stream.cancel()
        }
    }
}
