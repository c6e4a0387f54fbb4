import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import Testing

@testable import Signalbox

/// The collection endpoints (issues 25 and 26), in process: requests go straight to the
/// service's router (write gate included) on a service with a throwaway SQLite store.
/// `scripts/e2e.d/collections.py` checks the same over sockets, with every error. `shop` is
/// private (issue 29): its reads send the key too.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct CollectionEndpointsTests {
    static let key = "test-key"
    static let schema = """
        {"id": "sku", "fields": [
          {"name": "title", "type": "string", "search": true},
          {"name": "brand", "type": "string"},
          {"name": "tags", "type": "string[]"},
          {"name": "price", "type": "number"},
          {"name": "store", "type": "geo", "from": ["lat", "lon"]}],
         "rank": "price"}
        """
    let service: SignalboxService
    let client: TestClient

    init() async throws {
        service = try await Self.makeService()
        client = service.router.testClient()
    }

    /// A service on a throwaway SQLite store, with `configure`'s settings.
    static func makeService(_ configure: (inout Settings) -> Void = { _ in }) async throws -> SignalboxService {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("collections-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = Settings()
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        settings.apiKey = Self.key
        settings.clusterReadWait = TestTime.scaled(seconds: 0.2)
        configure(&settings)
        let store = try SQLiteStore(path: settings.storePath)
        return try SignalboxService(
            settings: settings, logger: Logger(label: "test"), base: [Document(id: "2988507", name: "Paris", rank: 2_100_000)],
            store: store, snapshot: try await store.snapshot())
    }

    func send(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, type: String = "application/json") async throws -> TestResponse {
        try await Self.send(client, method, path, body, type: type)
    }

    static func send(
        _ client: TestClient, _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, type: String = "application/json"
    ) async throws -> TestResponse {
        var fields: HTTPFields = [.authorization: "Bearer \(Self.key)"]
        if body != nil { fields[.contentType] = type }
        return try await client.execute(method, path, headerFields: fields, body: body.map { Array($0.utf8) } ?? [])
    }

    func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func ids(_ response: TestResponse) throws -> [String] {
        try #require(json(response)["hits"] as? [[String: Any]]).compactMap { $0["id"] as? String }
    }

    /// `shop` created and three documents imported as NDJSON (one more line that fails).
    func shop() async throws {
        #expect(try await send(.put, "/collections/shop", Self.schema).status == .created)
        let lines = [
            #"{"sku": "a", "title": "Red shoe", "brand": "Acme", "tags": ["sale"], "price": 10, "lat": 48.85, "lon": 2.35}"#,
            #"{"sku": "b", "title": "Blue shoe", "brand": "Acme", "tags": ["new", "sale"], "price": 30, "lat": 48.95, "lon": 2.35}"#,
            #"{"sku": "bad", "price": "cheap"}"#,
            #"{"sku": "c", "title": "Red hat", "brand": "Zeta", "price": 20, "lat": 52.52, "lon": 13.40}"#,
        ]
        let imported = try await send(.post, "/collections/shop/documents", lines.joined(separator: "\n"), type: "application/x-ndjson")
        #expect(imported.status == .ok)
        let report = try json(imported)
        #expect(report["created"] as? Int == 3 && report["updated"] as? Int == 0 && report["failed"] as? Int == 1, "\(report)")
        let errors = try #require(report["errors"] as? [[String: Any]])
        #expect(errors.first?["line"] as? Int == 3 && errors.first?["status"] as? Int == 422)
    }

    @Test func aCollectionIsCreatedListedAndReplaced() async throws {
        try await shop()
        let listed = try json(try await send(.get, "/collections"))
        let names = try #require(listed["collections"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names.contains("cities") && names.contains("shop"))
        let one = try json(try await send(.get, "/collections/shop"))
        #expect(one["documents"] as? Int == 3 && one["id"] as? String == "sku" && one["rank"] as? String == "price")
        #expect(try await send(.put, "/collections/shop", Self.schema).status == .ok)
    }

    @Test func aCSVImportCountsItsHeaderAsLineOne() async throws {
        try await shop()
        let csv = "sku,title,brand,tags,price\nd,CSV one,Acme,new|sale,5\ne,CSV two,Zeta,,x\na,Red shoe,Acme,sale,11\n"
        let report = try json(try await send(.post, "/collections/shop/documents", csv, type: "text/csv"))
        #expect(report["created"] as? Int == 1 && report["updated"] as? Int == 1 && report["failed"] as? Int == 1, "\(report)")
        #expect((report["errors"] as? [[String: Any]])?.first?["line"] as? Int == 3)
        let document = try json(try await send(.get, "/collections/shop/documents/d"))
        #expect(document["tags"] as? [String] == ["new", "sale"])
    }

    @Test func aSearchFiltersCountsFacetsAndSorts() async throws {
        try await shop()
        let response = try await send(.get, "/collections/shop/search?q=&filter=tags%20%3D%20sale%20OR%20price%20%3E%3D%2020&facets=brand,price&sort=price:asc")
        #expect(response.status == .ok)
        let result = try json(response)
        #expect(try ids(response) == ["a", "c", "b"])
        #expect(result["total"] as? Int == 3)
        let facets = try #require(result["facets"] as? [String: [String: Int]])
        #expect(facets["brand"] == ["Acme": 2, "Zeta": 1])
        let stats = try #require(result["stats"] as? [String: [String: Double]])
        #expect(stats["price"] == ["min": 10, "max": 30])
        let text = try await send(.get, "/collections/shop/search?q=red&filter=brand%20%3D%20acme")
        #expect(try ids(text) == ["a"])
    }

    @Test func aRadiusFindsTheNearStoresWithTheirDistance() async throws {
        try await shop()
        let response = try await send(.get, "/collections/shop/search?q=&filter=_geoRadius(48.85,%202.35,%2020000)&sort=_geoPoint(48.85,2.35):asc")
        #expect(try ids(response) == ["a", "b"])
        let hits = try #require(try json(response)["hits"] as? [[String: Any]])
        // 0.1 degree of latitude is about 11.1 km.
        #expect((hits.last?["distance"] as? Double).map { abs($0 - 11_120) < 50 } == true, "\(hits)")
    }

    /// A live `result` event's brand counts (`facets`) and price range (`stats`).
    func brandsAndPrices(_ event: TestEvent?) throws -> (brands: [String: Int], prices: [String: Double]) {
        let event = try #require(event)
        #expect(event.event == "result")
        let result = try #require(JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
        let brands = try #require((result["facets"] as? [String: [String: Int]])?["brand"])
        return (brands, try #require((result["stats"] as? [String: [String: Double]])?["price"]))
    }

    func brands(_ event: TestEvent?) throws -> [String: Int] { try brandsAndPrices(event).brands }

    @Test func aLiveFilteredQueryPushesNewFacetCountsOnlyWhenTheyChange() async throws {
        try await shop()
        let live = try await client.stream(
            "/collections/shop/search/live?q=&filter=tags%20%3D%20sale&facets=brand,price", headerFields: [.authorization: "Bearer \(Self.key)"])
        #expect(live.head.status == .ok)
        #expect(try brands(await live.next()) == ["Acme": 2])
        // Writes are applied and pushed in order: had a write before the last sent a result, it
        // would be the next event. A document outside the filter (no `sale` tag) alters nothing;
        // the same document written again unchanged is inside it but alters nothing either.
        #expect(try await send(.put, "/collections/shop/documents/d", #"{"title": "Green hat", "brand": "Zeta", "tags": ["new"], "price": 5}"#).status == .noContent)
        #expect(try await send(.put, "/collections/shop/documents/a", #"{"sku": "a", "title": "Red shoe", "brand": "Acme", "tags": ["sale"], "price": 10, "lat": 48.85, "lon": 2.35}"#).status == .noContent)
        #expect(try await send(.put, "/collections/shop/documents/e", #"{"title": "Grey hat", "brand": "Zeta", "tags": ["sale"], "price": 40}"#).status == .noContent)
        let added = try brandsAndPrices(await live.next())
        #expect(added.brands == ["Acme": 2, "Zeta": 1])
        #expect(added.prices == ["min": 10, "max": 40])
        // A document moved out of the filter and one whose brand changed: their counts move.
        #expect(try await send(.put, "/collections/shop/documents/b", #"{"title": "Blue shoe", "brand": "Acme", "tags": ["new"], "price": 30}"#).status == .noContent)
        #expect(try brands(await live.next()) == ["Acme": 1, "Zeta": 1])
        #expect(try await send(.put, "/collections/shop/documents/a", #"{"title": "Red shoe", "brand": "Zeta", "tags": ["sale"], "price": 10}"#).status == .noContent)
        #expect(try brands(await live.next()) == ["Zeta": 2])
        #expect(try await send(.delete, "/collections/shop/documents/d").status == .noContent)  // outside: nothing
        #expect(try await send(.delete, "/collections/shop/documents/e").status == .noContent)
        let deleted = try brandsAndPrices(await live.next())
        #expect(deleted.brands == ["Zeta": 1])
        #expect(deleted.prices == ["min": 10, "max": 10])
        live.cancel()
    }

    @Test func aBadFilterIsA400ProblemWithItsPosition() async throws {
        try await shop()
        let response = try await send(.get, "/collections/shop/search?q=&filter=price%20%3E")
        #expect(response.status == .badRequest)
        #expect(response.headerFields[.contentType]?.hasPrefix("application/problem+json") == true)
        #expect((try json(response)["detail"] as? String)?.hasPrefix("at ") == true)
        let undeclared = try await send(.get, "/collections/shop/search?q=&filter=colour%20%3D%20red")
        #expect(undeclared.status == .badRequest && undeclared.text.contains("colour"))
        #expect(try await send(.put, "/collections/bad", #"{"fields": [{"name": "a", "type": "text"}]}"#).status == .badRequest)
    }

    @Test func aMissingCollectionOrDocumentIsA404() async throws {
        #expect(try await send(.get, "/collections/none").status == .notFound)
        #expect(try await send(.get, "/collections/none/search?q=a").status == .notFound)
        try await shop()
        #expect(try await send(.get, "/collections/shop/documents/none").status == .notFound)
        #expect(try await send(.delete, "/collections/shop/documents/a").status == .noContent)
        #expect(try await send(.delete, "/collections/shop/documents/a").status == .notFound)
        #expect(try await send(.delete, "/collections/shop").status == .noContent)
        #expect(try await send(.get, "/collections/shop").status == .notFound)
    }

    /// An import's `Signalbox-Seq` is its last change: the last batch's last document, whatever
    /// the lines that failed after it, so `Signalbox-Min-Seq` with it waits for the whole import.
    @Test func anImportsSignalboxSeqIsItsLastChange() async throws {
        let service = try await Self.makeService { $0.importBatchSize = 2 }
        let client = service.router.testClient()
        #expect(try await Self.send(client, .put, "/collections/shop", Self.schema).headerFields[WriteReceipt.sequenceField] == "1")
        let lines = (1...5).map { #"{"sku": "s\#($0)", "title": "Item \#($0)"}"# } + [#"{"sku": "bad", "price": "cheap"}"#]
        let imported = try await Self.send(client, .post, "/collections/shop/documents", lines.joined(separator: "\n"), type: "application/x-ndjson")
        #expect(imported.status == .ok && imported.headerFields[WriteReceipt.sequenceField] == "6", "\(imported.text)")
        let last = try await client.execute(.get, "/collections/shop/documents/s5", headerFields: [MinimumSequenceGate.field: "6", .authorization: "Bearer \(Self.key)"])
        #expect(last.status == .ok)
        let next = try await Self.send(client, .put, "/collections/shop/documents/s6", #"{"title": "Item 6"}"#)
        #expect(next.headerFields[WriteReceipt.sequenceField] == "7")
        let failedOnly = try await Self.send(client, .post, "/collections/shop/documents", #"{"sku": "bad", "price": "cheap"}"#, type: "application/x-ndjson")
        #expect(failedOnly.status == .ok && failedOnly.headerFields[WriteReceipt.sequenceField] == nil)  // nothing was written
    }

    /// Each batch of an import is committed, then applied to the index as one write of its own,
    /// before the next is committed: 5 lines in batches of 2 are 3 index writes, never one
    /// per document nor batches run together (the index's merges depend on its writes' sizes).
    @Test func eachImportBatchIsOneIndexWrite() async throws {
        let service = try await Self.makeService { $0.importBatchSize = 2 }
        let client = service.router.testClient()
        _ = try await Self.send(client, .put, "/collections/shop", Self.schema)
        let index = try service.collections.collection("shop").index
        let before = index.version
        let lines = (1...5).map { #"{"sku": "s\#($0)", "title": "Item \#($0)"}"# }
        let imported = try await Self.send(client, .post, "/collections/shop/documents", lines.joined(separator: "\n"), type: "application/x-ndjson")
        #expect(imported.status == .ok, "\(imported.text)")
        #expect(index.version - before == 3)
        #expect(index.count == 5)
    }

    /// In batches of 2 (a a | b c | a c | d): an id written again in the same batch, in the next
    /// one (c, in flight when the batch after it is parsed) and in a later one (already in the
    /// index: a) is created once and updated after, as the index write of each batch finds it; a
    /// second import of it is an update.
    @Test func anIdWrittenAgainAcrossBatchesIsCreatedOnceThenUpdated() async throws {
        let service = try await Self.makeService { $0.importBatchSize = 2 }
        let client = service.router.testClient()
        _ = try await Self.send(client, .put, "/collections/shop", Self.schema)
        let lines = ["a", "a", "b", "c", "a", "c", "d"].map { #"{"sku": "\#($0)", "title": "Item"}"# }
        let first = try json(try await Self.send(client, .post, "/collections/shop/documents", lines.joined(separator: "\n"), type: "application/x-ndjson"))
        #expect(first["created"] as? Int == 4 && first["updated"] as? Int == 3, "\(first)")
        let again = try json(try await Self.send(client, .post, "/collections/shop/documents", #"{"sku": "d", "title": "Item"}"#, type: "application/x-ndjson"))
        #expect(again["created"] as? Int == 0 && again["updated"] as? Int == 1, "\(again)")
    }

    /// Counted by the index write of each batch: a document `PUT` before the import is updated,
    /// one deleted before it is created again. An import refused at its second batch for the
    /// collection's size limit keeps its first (stored, then applied) and nothing of the second.
    @Test func theCountsFollowTheIndexWritesAndAFailedBatchStoresNothing() async throws {
        let service = try await Self.makeService {
            $0.importBatchSize = 2
            $0.collectionsMaxDocuments = 5
        }
        let client = service.router.testClient()
        func post(_ ids: [String]) async throws -> TestResponse {
            let lines = ids.map { #"{"sku": "\#($0)", "title": "Item"}"# }.joined(separator: "\n")
            return try await Self.send(client, .post, "/collections/shop/documents", lines, type: "application/x-ndjson")
        }
        _ = try await Self.send(client, .put, "/collections/shop", Self.schema)
        #expect(try await Self.send(client, .put, "/collections/shop/documents/p", #"{"title": "Put"}"#).status == .noContent)
        #expect(try await Self.send(client, .put, "/collections/shop/documents/gone", #"{"title": "Gone"}"#).status == .noContent)
        #expect(try await Self.send(client, .delete, "/collections/shop/documents/gone").status == .noContent)
        let first = try json(try await post(["p", "gone", "n", "n"]))
        #expect(first["created"] as? Int == 2 && first["updated"] as? Int == 2, "\(first)")
        // 3 stored: x1 and x2 make 5, x3 and x4 would make 7.
        #expect(try await post(["x1", "x2", "x3", "x4"]).status == .conflict)
        let index = try service.collections.collection("shop").index
        #expect(index.count == 5 && index.document(id: "x2") != nil && index.document(id: "x3") == nil)
        for id in ["p", "n"] { #expect(try await Self.send(client, .delete, "/collections/shop/documents/\(id)").status == .noContent) }
        let again = try json(try await post(["x1", "x3"]))
        #expect(again["created"] as? Int == 1 && again["updated"] as? Int == 1, "\(again)")
    }

    /// Not a stream that stays empty: the name is checked as on the collection's other endpoints.
    @Test func theEventsOfACollectionThatDoesNotExistAreA404Problem() async throws {
        let events = try await client.execute(.get, "/events?collection=none", headerFields: [.authorization: "Bearer \(Self.key)"])
        #expect(events.status == .notFound && events.headerFields[.contentType] == "application/problem+json")
        #expect(events.text.contains("none"))
    }

    /// `PUT|DELETE /collections/cities/documents/{id}` are `PUT|DELETE /documents/{id}`: the same
    /// document shape, checks, answers and sequence numbers.
    @Test func theCitiesAreWrittenThroughTheirCollectionAsThroughDocuments() async throws {
        let put = try await send(.put, "/collections/cities/documents/c1", #"{"name": "Upgradeville", "rank": 3}"#)
        #expect(put.status == .noContent && put.headerFields[WriteReceipt.sequenceField] == "1")
        let city = try json(try await client.execute(.get, "/documents/c1"))
        #expect(city["name"] as? String == "Upgradeville" && city["rank"] as? Double == 3)
        let viaCollection = try json(try await client.execute(.get, "/collections/cities/documents/c1"))
        #expect(viaCollection["name"] as? String == "Upgradeville")
        #expect(try ids(try await client.execute(.get, "/collections/cities/search?q=upgradeville")) == ["c1"])
        #expect(try await send(.put, "/collections/cities/documents/c2", #"{"rank": 3}"#).status == .unprocessableContent)
        #expect(try await send(.put, "/collections/cities/documents/c2", #"{"id": "c3", "name": "X"}"#).status == .unprocessableContent)
        let anonymous = try await client.execute(
            .put, "/collections/cities/documents/c2", headerFields: [.contentType: "application/json"], body: Array(#"{"name": "X"}"#.utf8))
        #expect(anonymous.status == .unauthorized)
        let deleted = try await send(.delete, "/collections/cities/documents/c1")
        #expect(deleted.status == .noContent && deleted.headerFields[WriteReceipt.sequenceField] == "2")
        #expect(try await client.execute(.get, "/documents/c1").status == .notFound)
        #expect(try await send(.delete, "/collections/cities/documents/c1").status == .notFound)
        #expect(try await send(.delete, "/collections/cities/documents/2988507").status == .noContent)  // a base city
        #expect(try await client.execute(.get, "/collections/cities/documents/2988507").status == .notFound)
    }

    /// The cities' collection index takes their writes in batches, held until its next read: a
    /// search still finds every write answered before it, and a live query hears each write as it
    /// comes, a city that leaves its result too.
    @Test func theCitiesCollectionFindsEveryAnsweredWriteAndPushesToItsLiveQueries() async throws {
        for n in 0..<6 {
            #expect(try await send(.put, "/documents/h\(n)", #"{"name": "Heldtown \#(n)", "rank": \#(n + 1)}"#).status == .noContent)
        }
        #expect(try ids(try await client.execute(.get, "/collections/cities/search?q=heldtown")) == ["h5", "h4", "h3", "h2", "h1", "h0"])
        func total(_ event: TestEvent?) throws -> Int? {
            let event = try #require(event)
            return (try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])?["total"] as? Int
        }
        let live = try await client.stream("/collections/cities/search/live?q=livetown", headerFields: [.authorization: "Bearer \(Self.key)"])
        #expect(live.head.status == .ok)
        #expect(try total(await live.next()) == 0)
        #expect(try await send(.put, "/documents/l1", #"{"name": "Livetown", "rank": 2}"#).status == .noContent)
        #expect(try total(await live.next()) == 1)
        #expect(try await send(.put, "/documents/l1", #"{"name": "Elsewhere", "rank": 2}"#).status == .noContent)
        #expect(try total(await live.next()) == 0)
        live.cancel()
        #expect(try await send(.put, "/documents/h0", #"{"name": "Renamed", "rank": 1}"#).status == .noContent)
        #expect(try ids(try await client.execute(.get, "/collections/cities/search?q=heldtown")) == ["h5", "h4", "h3", "h2", "h1"])
    }

    @Test func writesNeedTheKeyAndTheCitiesAreFixed() async throws {
        let anonymous = try await client.execute(.put, "/collections/shop", headerFields: [.contentType: "application/json"], body: Array(Self.schema.utf8))
        #expect(anonymous.status == .unauthorized)
        #expect(try await send(.put, "/collections/cities", Self.schema).status == .conflict)
        #expect(try await send(.delete, "/collections/cities").status == .conflict)
    }
}
