@testable import HTTP
import Base
import HTTPTesting
import Rx
import Testing

/// Shutdown drains in order (issue 27): stop accepting, let the requests in flight finish
/// while event streams go on, and only then end the streams, so their clients reconnect to
/// a server that still accepts and lose nothing meanwhile.
@Suite("Drain order")
struct DrainOrderTests {
    @Test func streamsEndOnlyAfterTheRequestsInFlightAreAnswered() async throws {
        let workStarted = Latch()
        let streamSubscribed = Latch()
        let draining = Latch()
        let closingStreams = Latch()
        let release = PublishRelay<Void>()
        let events = PublishRelay<EncodedEvent>()
        let router = Router()
        router.get("/work") { _ -> Single<String> in
            release.take(1).do(onSubscribed: { workStarted.open() }).map { "done" }.asSingle()
        }
        router.get("/events") { _ -> Signal<EncodedEvent> in
            events.asObservable().do(onSubscribed: { streamSubscribed.open() }).asSignal(onErrorSignalWith: .empty())
        }
        // No heartbeat comment may come between the events this test reads, however slow the machine.
        try await router.withTestClient(.live(settings: ServerSettings(heartbeatInterval: .seconds(3600)))) { client in
            let server = try client.liveServer
            let lifecycle = server.lifecycle.subscribe(onNext: { event in
                if event == .draining { draining.open() }
                if event == .closingStreams { closingStreams.open() }
            })
            defer { lifecycle.dispose() }

            let stream = try client.connect(receiveTimeout: .seconds(60))
            try await stream.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await stream.readHead()
            await streamSubscribed.wait()
            let busy = try client.connect(receiveTimeout: .seconds(60))
            try await busy.send("GET /work HTTP/1.1\r\nHost: x\r\n\r\n")
            await workStarted.wait()

            let shutdown = Task { await server.shutdown(gracePeriod: TestTime.scaled(.seconds(30))) }
            await draining.wait()

            // Step 2: while a request is in flight, the stream stays open and keeps delivering.
            events.accept(EncodedEvent(ServerSentEvent(id: "1", data: "during drain")))
            #expect(try await EventStreamTests.readEvent(stream) == "id: 1\ndata: during drain\n\n")
            #expect(!closingStreams.isOpen)

            release.accept(())
            let reply = try await busy.readResponse()
            #expect(reply.text == "done" && reply.header("Connection") == "close")

            // Step 3: only now does the stream end, with its last chunk.
            await closingStreams.wait()
            #expect(try await stream.readEventBlockPastComments() == nil)
            await shutdown.value
            #expect(server.openConnections == 0)
        }
    }

    /// With no request in flight the streams end at once, each with its last chunk (were the
    /// grace period waited out, the stream would be cut off without one).
    @Test func withNothingInFlightStreamsEndCleanly() async throws {
        let subscribed = Latch()
        let events = PublishRelay<EncodedEvent>()
        let router = Router()
        router.get("/events") { _ -> Signal<EncodedEvent> in
            events.asObservable().do(onSubscribed: { subscribed.open() }).asSignal(onErrorSignalWith: .empty())
        }
        try await router.withTestClient(.live) { client in
            let stream = try client.connect(receiveTimeout: .seconds(60))
            try await stream.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await stream.readHead()
            await subscribed.wait()
            try await client.liveServer.shutdown(gracePeriod: TestTime.scaled(.seconds(1)))
            #expect(try await stream.readEventBlockPastComments() == nil)
        }
    }
}
