import Foundation
@testable import HTTP
import HTTPTypes
import Rx
import Synchronization
import Testing

struct Document: Codable, Equatable, ResponseEncodable {
    let id: String
    let title: String
}

/// Routes returning traits, over real sockets: the mapping to statuses, the
/// order of pipelined answers, and disposal when the client goes away.
@Suite("Trait routes", .timeLimit(.minutes(1)))
struct TraitRouteTests {
    @Test func traitsMapToStatuses() async throws {
        let router = Router()
        router.get("/documents/:id") { request -> Maybe<Document> in
            let id = request.parameters["id"] ?? ""
            return id == "1" ? .just(Document(id: id, title: "One")) : .empty()
        }
        router.put("/documents/:id") { _ -> Completable in .empty() }
        router.get("/search") { request -> Single<Response> in
            .just(Response(status: .ok, headerFields: [.eTag: "\"v1\""], body: Array("q=\(request.query["q"] ?? "")".utf8)))
        }
        router.get("/fails") { _ -> Single<String> in .error(HTTPError(.conflict, detail: "busy")) }
        router.get("/maybe-fails") { _ -> Maybe<String> in .error(HTTPError(.badRequest, detail: "no")) }
        router.delete("/documents/:id") { _ -> Completable in .error(HTTPError(.forbidden)) }
        let server = try startServer(router)
        let client = try server.client()

        try client.send("GET /documents/1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let found = try client.readResponse()
        #expect(found.status == 200)
        #expect(found.header("Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(Document.self, from: Data(found.body)) == Document(id: "1", title: "One"))

        try client.send("GET /documents/2 HTTP/1.1\r\nHost: x\r\n\r\n")
        let missing = try client.readResponse()
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "application/problem+json")

        try client.send("PUT /documents/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        let put = try client.readResponse()
        #expect(put.status == 204)
        #expect(put.header("Content-Length") == nil)

        try client.send("GET /search?q=a HTTP/1.1\r\nHost: x\r\n\r\n")
        let search = try client.readResponse()
        #expect(search.header("ETag") == "\"v1\"")
        #expect(search.text == "q=a")

        for (path, method, status) in [("/fails", "GET", 409), ("/maybe-fails", "GET", 400), ("/documents/1", "DELETE", 403)] {
            try client.send("\(method) \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = try client.readResponse()
            #expect(reply.status == status)
            #expect(reply.header("Content-Type") == "application/problem+json")
        }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func pipelinedAnswersKeepRequestOrderWhenHandlersFinishOutOfOrder() async throws {
        let release = PublishRelay<Void>()
        let thirdStarted = Latch()
        let router = Router()
        router.get("/slow") { _ -> Single<String> in release.take(1).map { "slow" }.asSingle() }
        router.get("/fast/:n") { request -> Single<String> in
            if request.parameters["n"] == "3" { thirdStarted.open() }
            return .just("fast \(request.parameters["n"]!)")
        }
        let server = try startServer(router)
        let client = try server.client()
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast/2 HTTP/1.1\r\nHost: x\r\n\r\nGET /fast/3 HTTP/1.1\r\nHost: x\r\n\r\n")
        await thirdStarted.wait()
        // Requests 2 and 3 are answered already; 1 is still running.
        release.accept(())
        #expect(try client.readResponse().text == "slow")
        #expect(try client.readResponse().text == "fast 2")
        #expect(try client.readResponse().text == "fast 3")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func disconnectingClientDisposesSingleInFlight() async throws {
        let subscribed = Latch()
        let disposed = Latch()
        let router = Router()
        router.get("/forever") { _ -> Single<String> in
            Single.create { _ in
                subscribed.open()
                return Disposables.create { disposed.open() }
            }
        }
        let server = try startServer(router)
        var client: TestClient? = try server.client()
        try client!.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
        await subscribed.wait()
        client = nil  // closes the socket
        await disposed.wait()
        #expect(disposed.isOpen)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func disconnectingClientDisposesIdleEventStream() async throws {
        let subscribed = Latch()
        let disposed = Latch()
        let events = PublishRelay<ServerSentEvent>()
        let router = Router()
        router.get("/events") { _ -> Signal<ServerSentEvent> in
            events.asSignal().do(onSubscribe: { subscribed.open() }, onDispose: { disposed.open() })
        }
        let server = try startServer(router)
        var client: TestClient? = try server.client()
        try client!.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client!.readHead()
        #expect(head.header("Content-Type") == "text/event-stream")
        await subscribed.wait()
        client = nil  // the stream is idle: only the armed read source can notice
        await disposed.wait()
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func gracefulShutdownCompletesTheRequestInFlight() async throws {
        let subscribed = Latch()
        let draining = Latch()
        let stopped = Latch()
        let release = PublishRelay<Void>()
        let router = Router()
        router.get("/work") { _ -> Single<String> in
            release.take(1).map { "done" }.asSingle().do(onSubscribe: { subscribed.open() })
        }
        let server = try startServer(router)
        let lifecycle = server.lifecycle.subscribe(onNext: { event in
            if event == .draining { draining.open() }
            if event == .stopped { stopped.open() }
        })
        defer { lifecycle.dispose() }
        let busy = try server.client()
        let idle = try server.client()
        try idle.send("GET /work-not-here HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try idle.readResponse().status == 404)
        try busy.send("GET /work HTTP/1.1\r\nHost: x\r\n\r\n")
        await subscribed.wait()

        let shutdown = Task { await server.shutdown(gracePeriod: .seconds(30)) }
        await draining.wait()
        #expect(try idle.isClosedByServer())  // idle keep-alive connections close at once
        release.accept(())
        let reply = try busy.readResponse()
        #expect(reply.status == 200)
        #expect(reply.text == "done")
        #expect(reply.header("Connection") == "close")
        await shutdown.value
        await stopped.wait()
        #expect(server.openConnections == 0)
        #expect(throws: (any Error).self) { try server.client() }
    }
}
