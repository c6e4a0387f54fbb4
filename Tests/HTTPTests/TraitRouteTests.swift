import Foundation
@testable import HTTP
import HTTPTesting
import HTTPTypes
import Rx
import Synchronization
import Testing

struct Document: Codable, Equatable, ResponseEncodable {
    let id: String
    let title: String
}

/// Routes returning traits: the status each kind of value answers with, event streams, and
/// disposal when the client goes away, each over both transports (in process and a live
/// server); the order of pipelined answers and a graceful shutdown over real sockets.
@Suite("Trait routes", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct TraitRouteTests {
    @Test(arguments: TestTransport.all)
    func eachTraitAnswersWithItsStatus(over transport: TestTransport) async throws {
        let router = Router()
        router.get("/value") { _ in "text" }
        router.get("/single") { _ -> Single<String> in .just("one") }
        router.get("/documents/:id") { request -> Maybe<Document> in
            let id = request.parameters["id"] ?? ""
            return id == "1" ? .just(Document(id: id, title: "One")) : .empty()
        }
        router.put("/documents/:id") { _ -> Completable in .empty() }
        router.delete("/documents/:id") { _ -> Completable in .error(HTTPError(.forbidden)) }
        router.delete("/in-use") { _ -> Completable in .error(HTTPError(.conflict, detail: "in use")) }
        router.get("/search") { request -> Single<Response> in
            .just(Response(status: .ok, headerFields: [.eTag: "\"v1\""], body: Array("q=\(request.query["q"] ?? "")".utf8)))
        }
        router.get("/fails") { _ -> Single<String> in .error(HTTPError(.conflict, detail: "busy")) }
        router.get("/maybe-fails") { _ -> Maybe<String> in .error(HTTPError(.badRequest, detail: "no")) }
        router.get("/throws") { _ -> Single<String> in throw HTTPError(.badRequest, detail: "no") }
        router.get("/crashes") { _ -> Single<String> in .error(CancellationError()) }

        try await router.withTestClient(transport) { client in
            #expect(try await client.execute(.get, "/value").text == "text")
            #expect(try await client.execute(.get, "/single").text == "one")

            let found = try await client.execute(.get, "/documents/1")
            #expect(found.status == .ok)
            #expect(found.headerFields[.contentType] == "application/json")
            #expect(try JSONDecoder().decode(Document.self, from: Data(found.body)) == Document(id: "1", title: "One"))
            let missing = try await client.execute(.get, "/documents/2")
            #expect(missing.status == .notFound)
            #expect(missing.headerFields[.contentType] == "application/problem+json")

            let put = try await client.execute(.put, "/documents/1", body: Array("{}".utf8))
            #expect(put.status == .noContent)
            #expect(put.headerFields[.contentLength] == nil)

            let search = try await client.execute(.get, "/search?q=a")
            #expect(search.headerFields[.eTag] == "\"v1\"")
            #expect(search.text == "q=a")

            let inUse = try await client.execute(.delete, "/in-use")
            #expect(inUse.status == .conflict)
            #expect(inUse.text.contains("in use"))
            for (method, path, status) in [(HTTPRequest.Method.get, "/fails", 409), (.get, "/maybe-fails", 400), (.delete, "/documents/1", 403), (.get, "/throws", 400)] {
                let reply = try await client.execute(method, path)
                #expect(reply.status.code == status, "\(method) \(path)")
                #expect(reply.headerFields[.contentType] == "application/problem+json", "\(method) \(path)")
            }
            // An error that is no HTTPError is a 500 that says nothing about it.
            let crash = try await client.execute(.get, "/crashes")
            #expect(crash.status == .internalServerError)
            #expect(!crash.text.contains("Cancellation"))
            // HEAD is served by the GET route, without running a second handler.
            let head = try await client.execute(.head, "/single")
            #expect(head.status == .ok)
            #expect(head.body.isEmpty)
        }
    }

    @Test(arguments: TestTransport.all)
    func aDriversStreamStartsWithItsCurrentValueThenFollows(over transport: TestTransport) async throws {
        let relay = BehaviorRelay(value: 1)
        let router = Router()
        router.get("/values") { _ -> Driver<ServerSentEvent> in
            relay.asDriver().map { ServerSentEvent(id: String($0), data: "value \($0)") }
        }
        try await router.withTestClient(transport) { client in
            let stream = try await client.stream("/values")
            #expect(stream.head.status == .ok)
            #expect(stream.head.headerFields[.contentType] == "text/event-stream")
            #expect(try await stream.next() == TestEvent(id: "1", data: "value 1"))
            relay.accept(2)
            #expect(try await stream.next() == TestEvent(id: "2", data: "value 2"))
            stream.cancel()
        }
    }

    /// A client that leaves an event stream disposes its subscription at once, though the
    /// stream is quiet (over a socket, only the read side being watched can notice).
    @Test(arguments: TestTransport.all)
    func aClientThatLeavesDisposesItsEventStream(over transport: TestTransport) async throws {
        let subject = PublishRelay<Int>()
        let disposed = Latch()
        let router = Router()
        router.get("/signal") { _ -> Signal<ServerSentEvent> in
            subject.asSignal().map { ServerSentEvent(data: "\($0)") }.do(onDispose: { disposed.open() })
        }
        try await router.withTestClient(transport) { client in
            let stream = try await client.stream("/signal")
            #expect(stream.head.headerFields[.contentType] == "text/event-stream")
            subject.accept(7)
            #expect(try await stream.next()?.data == "7")
            stream.cancel()
            await disposed.wait()  // the subscription was disposed; no sleep needed to know it
        }
    }

    /// A request whose task is cancelled is a client that leaves: the `Single` in flight is disposed.
    @Test(arguments: TestTransport.all)
    func aClientThatLeavesDisposesTheSingleInFlight(over transport: TestTransport) async throws {
        let subscribed = Latch()
        let disposed = Latch()
        let router = Router()
        router.get("/forever") { _ -> Single<String> in
            Single.create { _ in
                subscribed.open()
                return Disposables.create { disposed.open() }
            }
        }
        try await router.withTestClient(transport) { client in
            let request = Task { try await client.execute(.get, "/forever") }
            await subscribed.wait()
            request.cancel()
            await disposed.wait()
            #expect(await (try? request.value) == nil)
        }
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
        try await router.withTestClient(.live) { client in
            let connection = try client.connect()
            try await connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast/2 HTTP/1.1\r\nHost: x\r\n\r\nGET /fast/3 HTTP/1.1\r\nHost: x\r\n\r\n")
            await thirdStarted.wait()
            // Requests 2 and 3 are answered already; 1 is still running.
            release.accept(())
            #expect(try await connection.readResponse().text == "slow")
            #expect(try await connection.readResponse().text == "fast 2")
            #expect(try await connection.readResponse().text == "fast 3")
        }
    }

    @Test func gracefulShutdownCompletesTheRequestInFlight() async throws {
        let subscribed = Latch()
        let draining = Latch()
        let stopped = Latch()
        let release = PublishRelay<Void>()
        let router = Router()
        router.get("/work") { _ -> Single<String> in
            release.take(1).do(onSubscribed: { subscribed.open() }).map { "done" }.asSingle()
        }
        try await router.withTestClient(.live) { client in
            let server = try client.liveServer
            let lifecycle = server.lifecycle.subscribe(onNext: { event in
                if event == .draining { draining.open() }
                if event == .stopped { stopped.open() }
            })
            defer { lifecycle.dispose() }
            let busy = try client.connect()
            let idle = try client.connect()
            try await idle.send("GET /work-not-here HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await idle.readResponse().status == 404)
            try await busy.send("GET /work HTTP/1.1\r\nHost: x\r\n\r\n")
            await subscribed.wait()

            let shutdown = Task { await server.shutdown(gracePeriod: TestTime.scaled(.seconds(30))) }
            await draining.wait()
            #expect(try await idle.isClosedByServer())  // idle keep-alive connections close at once
            release.accept(())
            let reply = try await busy.readResponse()
            #expect(reply.status == 200)
            #expect(reply.text == "done")
            #expect(reply.header("Connection") == "close")
            await shutdown.value
            await stopped.wait()
            #expect(server.openConnections == 0)
            #expect(throws: TestClientError.self) { try client.connect() }
        }
    }
}
