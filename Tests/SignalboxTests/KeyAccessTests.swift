import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Logging
import Search
import Testing

@testable import Signalbox

/// Issue 29 in process: private collections, stored keys (actions, collections, expiry,
/// deletion) and tenant tokens on search, document reads and `/events`, on a service with a
/// throwaway SQLite store. `scripts/e2e.d/keys.py` checks the same over sockets.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct KeyAccessTests {
    static let admin = "admin-key"
    static let master = "a master secret of enough bytes"
    static let schema = """
        {"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}, {"name": "tenant", "type": "number"}]}
        """
    let service: SignalboxService
    let client: TestClient

    init() async throws {
        service = try await Self.service(masterSecret: Self.master)
        client = service.router.testClient()
    }

    static func service(masterSecret: String?, configure: (inout Settings) -> Void = { _ in }) async throws -> SignalboxService {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = Settings()
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        settings.apiKey = admin
        settings.keysMasterSecret = masterSecret
        settings.clusterReadWait = TestTime.scaled(seconds: 0.2)
        configure(&settings)
        let store = try SQLiteStore(path: settings.storePath)
        return try SignalboxService(
            settings: settings, logger: Logger(label: "test"), base: [Document(id: "2988507", name: "Paris", rank: 2_100_000)],
            store: store, snapshot: try await store.snapshot())
    }

    @discardableResult
    func send(_ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, as credential: String? = admin) async throws -> TestResponse {
        var fields: HTTPFields = [:]
        if let credential { fields[.authorization] = "Bearer \(credential)" }
        if body != nil { fields[.contentType] = "application/json" }
        return try await client.execute(method, path, headerFields: fields, body: body.map { Array($0.utf8) } ?? [])
    }

    func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
    }

    func ids(_ response: TestResponse) throws -> Set<String> {
        Set(try #require(json(response)["hits"] as? [[String: Any]], "\(response.text)").compactMap { $0["sku"] as? String ?? $0["id"] as? String })
    }

    /// `shop` (private) with documents a1, a2 (tenant 1) and b1 (tenant 2); `other` (private, empty).
    func shop() async throws {
        #expect(try await send(.put, "/collections/shop", Self.schema).status == .created)
        #expect(try await send(.put, "/collections/other", Self.schema).status == .created)
        for (sku, tenant) in [("a1", 1), ("a2", 1), ("b1", 2)] { try await put(sku, tenant: tenant) }
    }

    func put(_ sku: String, tenant: Int, title: String = "shoe") async throws {
        let response = try await send(.put, "/collections/shop/documents/\(sku)", #"{"title": "\#(title)", "tenant": \#(tenant)}"#)
        #expect(response.status == .noContent, "\(response.text)")
    }

    /// A stored key: its id and secret.
    func key(_ actions: [String], _ collections: [String] = ["shop"], expiresAt: String? = nil) async throws -> (id: String, key: String) {
        let expiry = expiresAt.map { #", "expiresAt": "\#($0)""# } ?? ""
        let body = #"{"name": "test", "actions": [\#(actions.map { "\"\($0)\"" }.joined(separator: ","))], "collections": [\#(collections.map { "\"\($0)\"" }.joined(separator: ","))]\#(expiry)}"#
        let response = try await send(.post, "/keys", body)
        #expect(response.status == .created, "\(response.text)")
        let made = try json(response)
        return (try #require(made["id"] as? String), try #require(made["key"] as? String))
    }

    func token(_ key: (id: String, key: String), rules: Any, exp: Double? = nil) throws -> String {
        var claims: [String: Any] = ["apiKeyId": key.id, "searchRules": rules]
        if let exp { claims["exp"] = exp }
        return try TenantTokenSigner.sign(claims, secret: key.key)
    }

    @Test func privateCollectionsNeedAKeyAndPublicOnesDoNot() async throws {
        try await shop()
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: nil).status == .unauthorized)
        #expect(try await send(.get, "/collections/shop/documents/a1", as: nil).status == .unauthorized)
        #expect(try await send(.get, "/collections/shop", as: nil).status == .unauthorized)
        #expect(try await send(.get, "/collections/cities/search?q=paris", as: nil).status == .ok)
        #expect(try await send(.get, "/search?q=paris", as: nil).status == .ok)
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: "wrong").status == .unauthorized)
        let listed = try json(try await send(.get, "/collections", as: nil))
        let names = try #require(listed["collections"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names == ["cities"])
        #expect(try ids(try await send(.get, "/collections/shop/search?q=shoe")) == ["a1", "a2", "b1"])
        // A public collection is read without a key.
        #expect(try await send(.put, "/collections/open", #"{"fields": [{"name": "title", "type": "string", "search": true}], "public": true}"#).status == .created)
        #expect(try await send(.get, "/collections/open/search?q=x", as: nil).status == .ok)
    }

    @Test func aKeyReachesItsActionsOnItsCollectionsOnly() async throws {
        try await shop()
        let searcher = try await key(["search"])
        #expect(try ids(try await send(.get, "/collections/shop/search?q=shoe", as: searcher.key)) == ["a1", "a2", "b1"])
        #expect(try await send(.get, "/collections/shop/documents/a1", as: searcher.key).status == .forbidden)
        #expect(try await send(.get, "/collections/other/search?q=shoe", as: searcher.key).status == .forbidden)
        #expect(try await send(.put, "/collections/shop/documents/z", #"{"title": "x", "tenant": 1}"#, as: searcher.key).status == .forbidden)
        #expect(try await send(.put, "/collections/shop", Self.schema, as: searcher.key).status == .forbidden)
        #expect(try await send(.get, "/keys", as: searcher.key).status == .forbidden)
        #expect(try await send(.get, "/collections/cities/search?q=paris", as: searcher.key).status == .ok)

        let writer = try await key(["documents.write", "documents.read"], ["*"])
        #expect(try await send(.put, "/collections/other/documents/z", #"{"title": "x", "tenant": 1}"#, as: writer.key).status == .noContent)
        #expect(try await send(.get, "/collections/other/documents/z", as: writer.key).status == .ok)
        #expect(try await send(.put, "/collections/other", Self.schema, as: writer.key).status == .forbidden)
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: writer.key).status == .forbidden)

        let manager = try await key(["keys.manage"], ["*"])
        #expect(try await send(.get, "/keys", as: manager.key).status == .ok)
        // A key's text with another id or one character changed is not a key.
        var tampered = Array(searcher.key)
        tampered[tampered.count - 1] = tampered[tampered.count - 1] == "A" ? "B" : "A"
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: String(tampered)).status == .unauthorized)
    }

    /// The scheme in any case, blanks around the credential; anything else is refused.
    @Test func theBearerSchemeIsReadInAnyCaseAndTrimmed() async throws {
        func status(_ authorization: String) async throws -> HTTPResponse.Status {
            try await client.execute(.get, "/collections/shop", headerFields: [.authorization: authorization]).status
        }
        try await shop()
        #expect(try await status("Bearer \(Self.admin)") == .ok)
        #expect(try await status("bEaReR  \(Self.admin) \t") == .ok)
        #expect(try await status("Bearer") == .unauthorized)
        #expect(try await status("Bearer ") == .unauthorized)
        #expect(try await status("Basic \(Self.admin)") == .unauthorized)
        #expect(try await status("Bearer\t\(Self.admin)") == .unauthorized)
        #expect(try await status("Bearer \(Self.admin)x") == .unauthorized)
    }

    @Test func keysAreListedWithoutSecretsAndDeletedKeysAreRefused() async throws {
        try await shop()
        let searcher = try await key(["search"], expiresAt: "2099-01-01T00:00:00Z")
        let listed = try json(try await send(.get, "/keys"))
        let keys = try #require(listed["keys"] as? [[String: Any]])
        #expect(keys.count == 1 && keys[0]["id"] as? String == searcher.id && keys[0]["key"] == nil)
        #expect(keys[0]["actions"] as? [String] == ["search"] && keys[0]["collections"] as? [String] == ["shop"])
        #expect(try json(try await send(.get, "/keys/\(searcher.id)"))["expiresAt"] as? String == "2099-01-01T00:00:00Z")
        #expect(!String(decoding: try await send(.get, "/keys").body, as: UTF8.self).contains(searcher.key))
        #expect(try await send(.delete, "/keys/\(searcher.id)").status == .noContent)
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: searcher.key).status == .unauthorized)
        #expect(try await send(.get, "/keys/\(searcher.id)").status == .notFound)
        #expect(try await send(.delete, "/keys/\(searcher.id)").status == .notFound)
    }

    @Test func badKeyRequestsAreProblems() async throws {
        #expect(try await send(.post, "/keys", #"{"actions": ["search"], "collections": ["shop"], "expiresAt": "2001-01-01T00:00:00Z"}"#).status == .badRequest)
        #expect(try await send(.post, "/keys", #"{"actions": ["fly"], "collections": ["shop"]}"#).status == .badRequest)
        #expect(try await send(.post, "/keys", #"{"actions": [], "collections": ["shop"]}"#).status == .badRequest)
        #expect(try await send(.post, "/keys", #"{"actions": ["search"]}"#).status == .badRequest)
        #expect(try await send(.post, "/keys", "not json").status == .badRequest)
        #expect(try await send(.post, "/keys", #"{"actions": ["search"], "collections": ["shop"]}"#, as: nil).status == .unauthorized)
        let without = try await Self.service(masterSecret: nil).router.testClient()
        let refused = try await without.execute(
            .post, "/keys", headerFields: [.authorization: "Bearer \(Self.admin)"], body: Array(#"{"actions": ["search"], "collections": ["shop"]}"#.utf8))
        #expect(refused.status == .conflict && refused.text.contains("keys.masterSecret"), "\(refused.text)")
    }

    @Test func theWriteRateLimitAppliesPerKey() async throws {
        let limited = try await Self.service(masterSecret: Self.master) { settings in
            settings.writesRatePerSecond = 0.001
            settings.writesBurst = 1
        }
        let client = limited.router.testClient()
        func send(_ method: HTTPRequest.Method, _ path: String, _ body: String, as key: String) async throws -> HTTPResponse.Status {
            try await client.execute(
                method, path, headerFields: [.authorization: "Bearer \(key)", .contentType: "application/json"], body: Array(body.utf8)
            ).status
        }
        #expect(try await send(.put, "/collections/shop", Self.schema, as: Self.admin) == .created)
        #expect(try await send(.put, "/collections/other", Self.schema, as: Self.admin) == .tooManyRequests)
        // A stored key has a bucket of its own (written to the store directly: the admin key's bucket is empty).
        let id = KeySecrets.newID()
        let stored = StoredKey(id: id, name: "w", actions: [.documentsWrite], collections: ["shop"], expiresAt: nil, createdAt: Date())
        let body = Data(stored.json())
        let sequence = try await limited.store.commit(.upsert(collection: KeyRegistry.collection, id: id, body: body))
        await limited.applier.apply(ChangeApplier.Change(sequence: sequence, collection: KeyRegistry.collection, id: id, body: body), waitingAtMost: .seconds(5))
        let writer = KeySecrets(masterSecret: Self.master).key(id: id)
        #expect(try await send(.put, "/collections/shop/documents/a", #"{"title": "a", "tenant": 1}"#, as: writer) == .noContent)
        #expect(try await send(.put, "/collections/shop/documents/b", #"{"title": "b", "tenant": 1}"#, as: writer) == .tooManyRequests)
    }

    @Test func theMasterSecretComesFromTheSettingOrItsFile() throws {
        var settings = Settings()
        #expect(try KeySecrets.from(settings) == nil)
        settings.keysMasterSecret = "short"
        #expect(throws: SettingsError.self) { try KeySecrets.from(settings) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("master-\(UUID().uuidString)").path
        try "\(Self.master)\n".write(toFile: path, atomically: true, encoding: .utf8)
        settings.keysMasterSecret = nil
        settings.keysMasterSecretFile = path
        let fromFile = try #require(try KeySecrets.from(settings))
        // The same secret derives the same keys on every replica.
        #expect(fromFile.key(id: "0123456789abcdef01234567") == KeySecrets(masterSecret: Self.master).key(id: "0123456789abcdef01234567"))
        #expect(fromFile.key(id: "0123456789abcdef01234567") != KeySecrets(masterSecret: Self.master + "x").key(id: "0123456789abcdef01234567"))
        settings.keysMasterSecretFile = path + ".missing"
        #expect(throws: SettingsError.self) { try KeySecrets.from(settings) }
    }

    @Test func anExpiredKeyIsRefused() async throws {
        try await shop()
        // Written to the store as POST /keys would, with an expiry already passed.
        let id = KeySecrets.newID()
        let stored = StoredKey(
            id: id, name: "old", actions: [.search], collections: ["shop"], expiresAt: Date(timeIntervalSinceNow: -1), createdAt: Date())
        let body = Data(stored.json())
        let sequence = try await service.store.commit(.upsert(collection: KeyRegistry.collection, id: id, body: body))
        await service.applier.apply(ChangeApplier.Change(sequence: sequence, collection: KeyRegistry.collection, id: id, body: body), waitingAtMost: .seconds(5))
        let secret = KeySecrets(masterSecret: Self.master).key(id: id)
        let refused = try await send(.get, "/collections/shop/search?q=shoe", as: secret)
        #expect(refused.status == .unauthorized && refused.text.contains("expired"), "\(refused.text)")
        let token = try token((id, secret), rules: ["shop": NSNull()])
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: token).status == .unauthorized)
    }

    @Test func aTenantTokenSeesOnlyItsRowsInSearchAndDocumentReads() async throws {
        try await shop()
        let searcher = try await key(["search", "documents.read"])
        let tenant1 = try token(searcher, rules: ["shop": ["filter": "tenant = 1"]])
        #expect(try ids(try await send(.get, "/collections/shop/search?q=shoe", as: tenant1)) == ["a1", "a2"])
        // The request's own OR never widens the rule.
        #expect(try ids(try await send(.get, "/collections/shop/search?q=shoe&filter=tenant%20%3D%202%20OR%20tenant%20%3D%201", as: tenant1)) == ["a1", "a2"])
        #expect(try ids(try await send(.get, "/collections/shop/search?q=shoe&filter=tenant%20%3D%202", as: tenant1)) == [])
        #expect(try await send(.get, "/collections/shop/documents/a1", as: tenant1).status == .ok)
        #expect(try await send(.get, "/collections/shop/documents/b1", as: tenant1).status == .notFound)
        #expect(try await send(.get, "/collections/other/search?q=shoe", as: tenant1).status == .forbidden)
        #expect(try await send(.get, "/collections/cities/search?q=paris", as: tenant1).status == .forbidden)
        #expect(try await send(.put, "/collections/shop/documents/a1", #"{"title": "x", "tenant": 1}"#, as: tenant1).status == .forbidden)
        // ?token= works as the header does (an EventSource cannot set headers).
        let query = try await client.execute(.get, "/collections/shop/search?q=shoe&token=\(tenant1)")
        #expect(try ids(query) == ["a1", "a2"])

        let expired = try token(searcher, rules: ["shop": ["filter": "tenant = 1"]], exp: Date().timeIntervalSince1970 - 10)
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: expired).status == .unauthorized)
        let forged = try TenantTokenSigner.sign(["apiKeyId": searcher.id, "searchRules": ["shop": NSNull()]], secret: "not the key")
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: forged).status == .unauthorized)
        let none = try TenantTokenSigner.sign(["apiKeyId": searcher.id, "searchRules": ["shop": NSNull()]], secret: searcher.key, algorithm: "none")
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: none).status == .unauthorized)
        let badFilter = try token(searcher, rules: ["shop": ["filter": "nosuchfield = 1"]])
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: badFilter).status == .forbidden)

        #expect(try await send(.delete, "/keys/\(searcher.id)").status == .noContent)
        #expect(try await send(.get, "/collections/shop/search?q=shoe", as: tenant1).status == .unauthorized)
    }

    @Test func aTenantTokenStreamSeesDocumentsMoveInAndOutOfItsFilter() async throws {
        try await shop()
        let streamer = try await key(["search", "events"])
        let tenant1 = try token(streamer, rules: ["shop": ["filter": "tenant = 1"]])
        let stream = try await client.stream("/events?token=\(tenant1)")
        #expect(stream.head.status == .ok)
        let start = try #require(try await stream.next())  // the position
        try await put("b2", tenant: 2)  // outside: never sent
        try await put("a3", tenant: 1)  // inside
        var event = try #require(try await stream.next())
        #expect(event.event == "document.upserted" && event.data.contains(#""a3""#), "\(event)")
        try await put("a3", tenant: 2)  // leaves the filter
        event = try #require(try await stream.next())
        #expect(event.event == "document.deleted" && event.data.contains(#""id":"a3""#) && !event.data.contains("tenant"), "\(event)")
        try await put("b2", tenant: 2, title: "again")  // still outside
        try await put("b2", tenant: 1)  // enters
        event = try #require(try await stream.next())
        #expect(event.event == "document.upserted" && event.data.contains(#""b2""#), "\(event)")
        #expect(try await send(.delete, "/collections/shop/documents/b2").status == .noContent)
        event = try #require(try await stream.next())
        #expect(event.event == "document.deleted" && event.data.contains(#""b2""#))
        #expect(try await send(.put, "/collections/other/documents/x", #"{"title": "x", "tenant": 1}"#).status == .noContent)
        try await put("a4", tenant: 1)
        let last = try #require(try await stream.next())
        #expect(last.data.contains(#""a4""#), "a change of another collection reached the token: \(last)")
        stream.cancel()

        // A resume replays the token's view of what it missed, and nothing else.
        let resumed = try await client.stream("/events", headerFields: [.authorization: "Bearer \(tenant1)", .init("Last-Event-ID")!: start.id ?? "0"])
        let replay = try await resumed.next(4)
        #expect(replay.map(\.event) == ["document.upserted", "document.deleted", "document.upserted", "document.deleted"], "\(replay)")
        #expect(replay.map { $0.data.contains("a3") } == [true, true, false, false])
        let next = try #require(try await resumed.next())
        #expect(next.data.contains(#""a4""#))
    }

    @Test func anonymousAndKeyedStreamsSeeOnlyWhatTheyMayRead() async throws {
        try await shop()
        let anonymous = try await client.stream("/events")
        _ = try await anonymous.next()
        let private1 = try await client.stream("/events?collection=shop")
        #expect(private1.head.status == .unauthorized)
        try await put("a5", tenant: 1)
        #expect(try await send(.put, "/documents/x1", #"{"name": "Town"}"#).status == .noContent)
        let event = try #require(try await anonymous.next())
        #expect(event.data.contains("x1") && event.data.contains("cities"), "a private change reached an anonymous stream: \(event)")

        // A key of `shop` alone: shop's changes and the public cities', not another private collection's.
        let shopKey = try await key(["events"], ["shop"])
        let keyed = try await client.stream("/events", headerFields: [.authorization: "Bearer \(shopKey.key)"])
        #expect(keyed.head.status == .ok)
        _ = try await keyed.next()  // the position
        #expect(try await send(.put, "/collections/other/documents/o1", #"{"title": "o", "tenant": 1}"#).status == .noContent)
        try await put("a6", tenant: 1)
        #expect(try await send(.put, "/documents/x2", #"{"name": "Village"}"#).status == .noContent)
        let seen = try await keyed.next(2)
        #expect(seen.map { $0.data.contains("a6") && $0.data.contains("shop") } == [true, false], "\(seen)")
        #expect(seen.last?.data.contains("x2") == true, "\(seen)")
        #expect(!seen.contains { $0.data.contains("o1") }, "another private collection's change reached the key: \(seen)")
    }
}
