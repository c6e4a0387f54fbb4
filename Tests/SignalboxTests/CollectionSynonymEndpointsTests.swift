import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import Testing

@testable import Signalbox

/// `GET|PUT /collections/{name}/synonyms` and `/stopwords` (issue 28): kept in the store, applied
/// at query time (live queries included), refused with the field named. In process, but the live
/// query is read over a real socket. `scripts/e2e.d/synonyms.py` checks the same on a running server.
@Suite(.timeLimit(.minutes(1)))
struct CollectionSynonymEndpointsTests {
    private typealias C = CollectionEndpointsTests
    static let schema = """
        {"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}, {"name": "price", "type": "number"}], "rank": "price"}
        """

    private static func send(_ client: TestClient, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil) async throws -> TestResponse {
        try await C.send(client, method, path, body)
    }

    private static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private static func ids(_ response: TestResponse) throws -> [String] {
        try #require(json(response)["hits"] as? [[String: Any]]).compactMap { $0["id"] as? String }
    }

    private static func ids(_ event: TestEvent?) throws -> [String] {
        let event = try #require(event)
        #expect(event.event == "result")
        let result = try #require(JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
        return try #require(result["hits"] as? [[String: Any]]).compactMap { $0["id"] as? String }
    }

    /// `shop` with a pair of sneakers, dearer trainers, and a wooden house.
    private static func shop(_ client: TestClient) async throws {
        #expect(try await send(client, .put, "/collections/shop", schema).status == .created)
        for (id, title, price) in [("s", "Running sneakers", 10), ("t", "Running trainers", 50), ("w", "The House of Wood", 5)] {
            #expect(try await send(client, .put, "/collections/shop/documents/\(id)", #"{"title": "\#(title)", "price": \#(price)}"#).status == .noContent)
        }
    }

    @Test func synonymsAndStopWordsArePutReadAndApplied() async throws {
        let service = try await C.makeService()
        let client = service.router.testClient()
        try await Self.shop(client)
        // None at first.
        #expect(String(decoding: try await Self.send(client, .get, "/collections/shop/synonyms").body, as: UTF8.self) == #"{"synonyms":[],"oneWay":{}}"#)
        #expect(String(decoding: try await Self.send(client, .get, "/collections/shop/stopwords").body, as: UTF8.self) == #"{"stopwords":[]}"#)
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=sneakers%20")) == ["s"])

        let put = try await Self.send(
            client, .put, "/collections/shop/synonyms", #"{"synonyms": [["home", "house"]], "oneWay": {"sneakers": ["trainers"]}}"#)
        #expect(put.status == .ok)
        #expect(put.headerFields[WriteReceipt.sequenceField] != nil)
        let expected = #"{"synonyms":[["home","house"]],"oneWay":{"sneakers":["trainers"]}}"#
        #expect(String(decoding: put.body, as: UTF8.self) == expected)
        #expect(String(decoding: try await Self.send(client, .get, "/collections/shop/synonyms").body, as: UTF8.self) == expected)
        // Applied at once, no re-index: the typed word first, then the synonym's; one way only.
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=sneakers%20")) == ["s", "t"])
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=trainers%20")) == ["t"])
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=home%20")) == ["w"])

        // "the" first would admit only the house; as a stop word it is dropped.
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=the%20running%20")) == ["w"])
        let stop = try await Self.send(client, .put, "/collections/shop/stopwords", #"{"stopwords": ["the", "of"]}"#)
        #expect(stop.status == .ok)
        #expect(String(decoding: stop.body, as: UTF8.self) == #"{"stopwords":["the","of"]}"#)
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=the%20running%20")) == ["t", "s"])
        // A query of stop words only is searched as typed.
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=the%20")) == ["w"])

        // Emptied: none again.
        #expect(try await Self.send(client, .put, "/collections/shop/synonyms", #"{"synonyms": []}"#).status == .ok)
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=sneakers%20")) == ["s"])
    }

    @Test func badBodiesAndAccessAreRefused() async throws {
        let service = try await C.makeService { $0.collectionsMaxSynonymGroups = 1 }
        let client = service.router.testClient()
        try await Self.shop(client)
        func detail(_ response: TestResponse) throws -> String { try Self.json(response)["detail"] as? String ?? "" }
        let wrongType = try await Self.send(client, .put, "/collections/shop/synonyms", #"{"synonyms": [["a", 2]]}"#)
        #expect(wrongType.status == .badRequest)
        #expect(wrongType.headerFields[.contentType] == "application/problem+json")
        #expect(try detail(wrongType).contains("synonyms[0][1]"))
        let tooMany = try await Self.send(client, .put, "/collections/shop/synonyms", #"{"synonyms": [["a", "b"], ["c", "d"]]}"#)
        #expect(tooMany.status == .badRequest)
        #expect(try detail(tooMany).contains("collections.maxSynonymGroups"))
        let phrase = try await Self.send(client, .put, "/collections/shop/stopwords", #"{"stopwords": ["new york"]}"#)
        #expect(phrase.status == .badRequest)
        #expect(try detail(phrase).contains("stopwords[0]"))
        #expect(try await Self.send(client, .put, "/collections/shop/stopwords", "[]").status == .badRequest)
        #expect(try await Self.send(client, .put, "/collections/none/synonyms", #"{"synonyms": []}"#).status == .notFound)
        #expect(try await Self.send(client, .get, "/collections/none/stopwords").status == .notFound)
        #expect(try await Self.send(client, .put, "/collections/cities/synonyms", #"{"synonyms": []}"#).status == .conflict)
        // Changing them needs the write key; reading them is a search's right (shop is private).
        let anonymous = try await client.execute(
            .put, "/collections/shop/synonyms", headerFields: [.contentType: "application/json"], body: Array(#"{"synonyms": []}"#.utf8))
        #expect(anonymous.status == .unauthorized)
        #expect(try await client.execute(.get, "/collections/shop/synonyms").status == .unauthorized)
        // Nothing refused was stored.
        #expect(String(decoding: try await Self.send(client, .get, "/collections/shop/synonyms").body, as: UTF8.self) == #"{"synonyms":[],"oneWay":{}}"#)
    }

    @Test func theyOutliveARestartButNotTheirCollection() async throws {
        var path = ""
        let first = try await C.makeService { path = $0.storePath }
        let client = first.router.testClient()
        try await Self.shop(client)
        #expect(try await Self.send(client, .put, "/collections/shop/synonyms", #"{"oneWay": {"sneakers": ["trainers"]}}"#).status == .ok)
        #expect(try await Self.send(client, .put, "/collections/shop/stopwords", #"{"stopwords": ["the"]}"#).status == .ok)

        let again = try await C.makeService { $0.storePath = path }
        let restarted = again.router.testClient()
        #expect(try Self.ids(await Self.send(restarted, .get, "/collections/shop/search?q=sneakers%20")) == ["s", "t"])
        #expect(String(decoding: try await Self.send(restarted, .get, "/collections/shop/stopwords").body, as: UTF8.self) == #"{"stopwords":["the"]}"#)
        // No event was published for them: the feed starts with the collection and its documents.

        // A collection deleted and made again starts with none, here and after a restart. They go
        // with it in one change (one transaction): no failure can leave them to a collection made again.
        let before = again.applier.applied.value
        #expect(try await Self.send(restarted, .delete, "/collections/shop").status == .noContent)
        #expect(again.applier.applied.value == before + 1)
        try await Self.shop(restarted)
        #expect(try Self.ids(await Self.send(restarted, .get, "/collections/shop/search?q=sneakers%20")) == ["s"])
        let third = try await C.makeService { $0.storePath = path }
        #expect(try Self.ids(await Self.send(third.router.testClient(), .get, "/collections/shop/search?q=sneakers%20")) == ["s"])
        #expect(String(decoding: try await Self.send(third.router.testClient(), .get, "/collections/shop/stopwords").body, as: UTF8.self) == #"{"stopwords":[]}"#)
    }

    /// Another replica's change, read from the log as the follower offers it: applied here too,
    /// and never an event.
    @Test func anotherReplicasChangeFromTheLogIsApplied() async throws {
        let service = try await C.makeService()
        let client = service.router.testClient()
        try await Self.shop(client)
        let next = service.applier.applied.value + 1
        let body = Data(#"{"synonyms":[],"oneWay":{"sneakers":["trainers"]}}"#.utf8)
        let stored = StoredChange(collection: TextSettingsDocuments.collection, id: "shop/synonyms", body: body, sequence: next)
        service.applier.offer([try ChangeApplier.Change(stored)])
        try await service.applier.applied(atLeast: next, within: .seconds(30)).value
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=sneakers%20")) == ["s", "t"])
        #expect(String(decoding: try await Self.send(client, .get, "/collections/shop/synonyms").body, as: UTF8.self) == String(decoding: body, as: UTF8.self))
        // Its removal, too.
        service.applier.offer([ChangeApplier.Change(sequence: next + 1, collection: TextSettingsDocuments.collection, id: "shop/synonyms", body: nil)])
        try await service.applier.applied(atLeast: next + 1, within: .seconds(30)).value
        #expect(try Self.ids(await Self.send(client, .get, "/collections/shop/search?q=sneakers%20")) == ["s"])
        #expect(ChangeApplier.Change(sequence: 1, collection: TextSettingsDocuments.collection, id: "shop/synonyms", body: body).isInternal)
    }

    @Test func aLiveQueryGetsANewResultAfterASynonymChangeOnlyWhenItsResultChanges() async throws {
        let service = try await C.makeService()
        try await service.router.withTestClient(.live) { client in
            try await Self.shop(client)
            let live = try await client.stream(
                "/collections/shop/search/live?q=sneakers%20", headerFields: [.authorization: "Bearer \(C.key)"])
            #expect(live.head.status == .ok)
            #expect(try Self.ids(await live.next()) == ["s"])
            // A synonym that does not touch this query: no event. Changes are applied and pushed
            // in order, so had it sent one, it would be the next event read below.
            #expect(try await Self.send(client, .put, "/collections/shop/synonyms", #"{"synonyms": [["home", "house"]]}"#).status == .ok)
            #expect(try await Self.send(client, .put, "/collections/shop/synonyms", #"{"synonyms": [["home", "house"]], "oneWay": {"sneakers": ["trainers"]}}"#).status == .ok)
            #expect(try Self.ids(await live.next()) == ["s", "t"])
            // Taken back: the trainers leave.
            #expect(try await Self.send(client, .put, "/collections/shop/synonyms", #"{}"#).status == .ok)
            #expect(try Self.ids(await live.next()) == ["s"])
            live.cancel()
        }
    }
}
