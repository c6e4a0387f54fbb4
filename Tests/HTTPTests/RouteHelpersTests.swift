import Base
import HTTPTesting
import HTTPTypes
import Testing

@testable import HTTP

/// The HTTP-level helpers a service composes: conditional requests, bearer keys, checked groups.
@Suite struct RouteHelpersTests {
    func request(_ fields: HTTPFields) -> Request {
        Request.test(headerFields: fields)
    }

    @Test func ifNoneMatchComparesWeaklyAndStarMatchesAny() {
        #expect(!request([:]).isNotModified(etag: "\"a\""))
        #expect(request([.ifNoneMatch: "\"a\""]).isNotModified(etag: "\"a\""))
        #expect(request([.ifNoneMatch: "W/\"a\""]).isNotModified(etag: "\"a\""))
        #expect(request([.ifNoneMatch: "\"a\""]).isNotModified(etag: "W/\"a\""))
        #expect(request([.ifNoneMatch: "\"x\" , \"a\""]).isNotModified(etag: "\"a\""))
        #expect(request([.ifNoneMatch: "*"]).isNotModified(etag: "\"a\""))
        #expect(!request([.ifNoneMatch: "\"b\""]).isNotModified(etag: "\"a\""))
        #expect(!request([.ifNoneMatch: "a"]).isNotModified(etag: "\"a\""))
    }

    @Test func bearerFindsTheKeyAndChallengesOtherwise() throws {
        let bearer = BearerAuthorization(realm: "test")
        let keys = ["old", "new"]
        #expect(try bearer.key(of: request([.authorization: "Bearer new"]), among: keys) == "new")
        #expect(try bearer.key(of: request([.authorization: "bearer old"]), among: keys) == "old")
        for header in ["Bearer other", "Bearer ne", "Bearer new" + String(repeating: "x", count: 256), "Basic bmV3", "Bearer "] {
            do {
                _ = try bearer.key(of: request([.authorization: header]), among: keys)
                Issue.record("\(header) was accepted")
            } catch {
                #expect(error.status == .unauthorized)
                #expect(error.headerFields[.wwwAuthenticate] == #"Bearer realm="test""#)
                #expect(!(error.detail ?? "").contains("new"))
            }
        }
        #expect(throws: HTTPError.self) { try bearer.key(of: request([:]), among: keys) }
    }

    @Test(.timeLimit(.minutes(TestTime.scaled(minutes: 1))), arguments: TestTransport.all)
    func aGroupRunsItsChecksOutsideInBeforeTheHandler(over transport: TestTransport) async throws {
        let router = Router()
        let order = Locked<[String]>([])
        let outer = router.checking { _ in order.withLock { $0.append("outer") } }
        let inner = outer.checking { request in
            order.withLock { $0.append("inner") }
            if request.headerFields[.authorization] == nil { throw HTTPError(.unauthorized) }
        }
        inner.get("/guarded") { _ in
            order.withLock { $0.append("handler") }
            return "ok"
        }
        router.get("/open") { _ in "open" }
        try await router.withTestClient(transport) { client in
            #expect(try await client.execute(.get, "/guarded").status == 401)
            #expect(order.withLock { $0 } == ["outer", "inner"])
            let passed = try await client.execute(.get, "/guarded", headerFields: [.authorization: "Bearer k"])
            #expect(passed.status == 200)
            #expect(passed.text == "ok")
            #expect(order.withLock { $0 } == ["outer", "inner", "outer", "inner", "handler"])
            #expect(try await client.execute(.get, "/open").text == "open")
            #expect(order.withLock { $0 }.count == 5)
        }
    }
}
