import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import Testing

@testable import Signalbox

/// Every endpoint of the service, in process: requests go straight to the service's router
/// (gates and checks included) on a service with a small data set and a throwaway SQLite store.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct EndpointTests {
    static let key = "test-key"
    let service: SignalboxService
    let client: TestClient
    let directory: URL

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("endpoints-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = Settings()
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        settings.apiKey = Self.key
        settings.clusterReadWait = TestTime.scaled(seconds: 0.2)
        let store = try SQLiteStore(path: settings.storePath)
        let base = [
            Document(id: "3448439", name: "São Paulo", rank: 12_400_000),
            Document(id: "3451190", name: "Rio de Janeiro", rank: 6_700_000),
            Document(id: "2988507", name: "Paris", rank: 2_100_000),
        ]
        service = try SignalboxService(
            settings: settings, logger: Logger(label: "test"), base: base, store: store, snapshot: try await store.snapshot())
        client = service.router.testClient()
    }

    func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func names(_ response: TestResponse) throws -> [String] {
        try #require(json(response)["hits"] as? [[String: Any]]).compactMap { $0["name"] as? String }
    }

    func put(_ id: String, _ body: String, key: String? = key, type: String = "application/json") async throws -> TestResponse {
        var fields: HTTPFields = [.contentType: type]
        if let key { fields[.authorization] = "Bearer \(key)" }
        return try await client.execute(.put, "/documents/\(id)", headerFields: fields, body: Array(body.utf8))
    }

    // MARK: search (a Single over the shared lookup)

    @Test func searchFindsAccentFoldedPrefixesAndAnswers304ForTheSameTag() async throws {
        let found = try await client.execute(.get, "/search?q=sao%20pa")
        #expect(found.status == .ok)
        #expect(found.headerFields[.contentType] == "application/json")
        #expect(try names(found).first == "São Paulo")
        let etag = try #require(found.headerFields[.eTag])
        let again = try await client.execute(.get, "/search?q=sao%20pa", headerFields: [.ifNoneMatch: etag])
        #expect(again.status == .notModified)
        #expect(again.body.isEmpty)
    }

    @Test func aSearchWithoutAQueryIsA400Problem() async throws {
        let response = try await client.execute(.get, "/search")
        #expect(response.status == .badRequest)
        #expect(response.headerFields[.contentType] == "application/problem+json")
        #expect(try json(response)["detail"] as? String == "The query parameter q is required.")
    }

    // MARK: documents (a Maybe; Singles of the write's receipt)

    @Test func aDocumentIsFoundOrA404WhenTheMaybeIsEmpty() async throws {
        let found = try await client.execute(.get, "/documents/2988507")
        #expect(found.status == .ok)
        #expect(try json(found)["name"] as? String == "Paris")
        let missing = try await client.execute(.get, "/documents/none")
        #expect(missing.status == .notFound)
        #expect(missing.headerFields[.contentType] == "application/problem+json")
    }

    @Test func aWriteIsAnswered204WithItsSequenceThenServedAndDeleted() async throws {
        let written = try await put("lyon", #"{"name":"Lyon","rank":500000}"#)
        #expect(written.status == .noContent)
        #expect(written.headerFields[WriteReceipt.sequenceField] == "1")
        #expect(try names(await client.execute(.get, "/search?q=lyo")) == ["Lyon"])
        let deleted = try await client.execute(.delete, "/documents/lyon", headerFields: [.authorization: "Bearer \(Self.key)"])
        #expect(deleted.status == .noContent)
        #expect(deleted.headerFields[WriteReceipt.sequenceField] == "2")
        #expect(try await client.execute(.get, "/documents/lyon").status == .notFound)
        // The Single's error (the store's DocumentNotFound) is mapped to its problem at the edge.
        let again = try await client.execute(.delete, "/documents/lyon", headerFields: [.authorization: "Bearer \(Self.key)"])
        #expect(again.status == .notFound)
    }

    @Test func writesAreCheckedBeforeTheHandlerRuns() async throws {
        #expect(try await put("a", #"{"name":"A"}"#, key: nil).status == .unauthorized)
        #expect(try await put("a", #"{"name":"A"}"#, key: "wrong").headerFields[.wwwAuthenticate] == #"Bearer realm="signalbox""#)
        #expect(try await put("a", "{", key: nil).status == .unauthorized)  // the check comes first
        #expect(try await put("a", "{").status == .badRequest)
        #expect(try await put("a", #"{"name":"A"}"#, type: "text/plain").status == .unsupportedMediaType)
        #expect(try await put("a", #"{"rank":1}"#).status == .unprocessableContent)
        #expect(try await put("a", #"{"id":"b","name":"A"}"#).status == .unprocessableContent)
        #expect(try await client.execute(.get, "/documents/a").status == .notFound)
    }

    // MARK: streams (a Signal and a Driver over SSE)

    @Test func eventsStreamEachWriteWithItsSequenceAsId() async throws {
        let events = try await client.stream("/events")
        #expect(events.head.status == .ok)
        #expect(events.head.headerFields[.contentType] == "text/event-stream")
        #expect(try await put("nice", #"{"name":"Nice"}"#).status == .noContent)
        var change = try await events.next()
        while change?.event == nil { change = try await events.next() }  // the position block first
        #expect(change?.id == "1")
        #expect(change?.event == ChangeEvent.Kind.upserted.rawValue)
        #expect(change?.data.contains(#""name":"Nice""#) == true)
        events.cancel()
    }

    @Test func aLiveQueryStartsWithTheCurrentResultThenPushesFreshOnes() async throws {
        let live = try await client.stream("/search/live?q=par")
        #expect(live.head.status == .ok)
        let current = try #require(await live.next())
        #expect(current.event == "result")
        #expect(current.data.contains("Paris"))
        #expect(try await put("parma", #"{"name":"Parma","rank":3000000}"#).status == .noContent)
        let fresh = try #require(await live.next())
        #expect(fresh.data.contains("Parma"))
        live.cancel()
    }

    @Test func aLiveQueryWithABadQueryIsAProblemNotAStream() async throws {
        let live = try await client.stream("/search/live")
        #expect(live.head.status == .badRequest)
        #expect(live.head.headerFields[.contentType] == "application/problem+json")
    }

    // MARK: operations and the page

    @Test func probesMetricsAndDocumentsAnswer() async throws {
        let health = try await client.execute(.get, "/healthz")
        #expect(health.status == .ok)
        #expect(health.text == #"{"status":"ok"}"#)
        let readiness = try await client.execute(.get, "/readyz")
        #expect(readiness.status == .serviceUnavailable)  // not started: not ready
        #expect(try json(readiness)["status"] as? String == "unavailable")
        #expect(try json(readiness)["epoch"] is String)
        #expect(try await client.execute(.get, "/metrics").status == .ok)
        #expect(try await client.execute(.get, "/openapi.yaml").text.hasPrefix("openapi: 3"))
        let page = try await client.execute(.get, "/")
        #expect(page.status == .ok)
        #expect(page.headerFields[.contentType]?.hasPrefix("text/html") == true)
    }

    @Test func anUnknownPathIs404AndAKnownOneWithAnotherMethod405() async throws {
        #expect(try await client.execute(.get, "/nothing").status == .notFound)
        let wrongMethod = try await client.execute(.post, "/search?q=a")
        #expect(wrongMethod.status == .methodNotAllowed)
        #expect(wrongMethod.headerFields[.allow]?.contains("GET") == true)
    }

    @Test func aReadForASequenceNotYetAppliedWaitsThen503() async throws {
        let response = try await client.execute(.get, "/search?q=par", headerFields: [HTTPField.Name("Signalbox-Min-Seq")!: "99"])
        #expect(response.status == .serviceUnavailable)
        #expect(response.headerFields[.retryAfter] != nil)
        let bad = try await client.execute(.get, "/search?q=par", headerFields: [HTTPField.Name("Signalbox-Min-Seq")!: "x"])
        #expect(bad.status == .badRequest)
    }
}
