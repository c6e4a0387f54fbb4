@testable import HTTP
import HTTPTypes
import Rx
import Synchronization
import Testing

/// Server-sent events over real sockets: framing, heartbeats, slow clients, shutdown.
@Suite("Event streams", .timeLimit(.minutes(1)))
struct EventStreamTests {
    @Test func eventEncoding() {
        let event = ServerSentEvent(id: "7", event: "update", data: "line 1\nline 2\r\nline 3", retry: 1500)
        #expect(String(decoding: event.encoded, as: UTF8.self) == "id: 7\nevent: update\nretry: 1500\ndata: line 1\ndata: line 2\ndata: line 3\n\n")
        let sneaky = ServerSentEvent(id: "a\nb", event: "x\r\ny", data: "")
        #expect(String(decoding: sneaky.encoded, as: UTF8.self) == "id: ab\nevent: xy\ndata: \n\n")
        // No data line: the client records the id but dispatches nothing.
        #expect(String(decoding: ServerSentEvent.lastEventID("42").encoded, as: UTF8.self) == "id: 42\n\n")
    }

    @Test func encodedEventIsOneChunk() {
        let event = EncodedEvent(ServerSentEvent(id: "7", event: "update", data: "a\nb"))
        let block = "id: 7\nevent: update\ndata: a\ndata: b\n\n"
        #expect(String(decoding: event.block, as: UTF8.self) == block)
        #expect(String(decoding: event.chunk, as: UTF8.self) == String(block.utf8.count, radix: 16) + "\r\n" + block + "\r\n")
        #expect(event == EncodedEvent(block: Array(block.utf8)))
    }

    /// One event encoded once reaches every client byte for byte, on both workers.
    @Test func oneEncodedEventReachesEveryClient() async throws {
        let subscriptions = Atomic<Int>(0)
        let allSubscribed = Latch()
        let clients = 6
        let events = PublishRelay<EncodedEvent>()
        let router = Router()
        router.get("/events") { _ -> Signal<EncodedEvent> in
            events.asObservable().do(onSubscribed: {
                if subscriptions.add(1, ordering: .relaxed).newValue == clients { allSubscribed.open() }
            }).asSignal(onErrorSignalWith: .empty())
        }
        let server = try startServer(router, workerCount: 2)
        var connections: [TestClient] = []
        for _ in 0..<clients {
            let client = try server.client()
            try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try client.readHead()
            connections.append(client)
        }
        await allSubscribed.wait()
        let shared = EncodedEvent(ServerSentEvent(id: "1", event: "change", data: "{\"x\":1}"))
        events.accept(shared)
        events.accept(shared)
        for client in connections {
            #expect(try Self.readEvent(client) == "id: 1\nevent: change\ndata: {\"x\":1}\n\n")
            #expect(try Self.readEvent(client) == "id: 1\nevent: change\ndata: {\"x\":1}\n\n")
        }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// HTTP/1.0 has no chunked framing: the shared event's block goes out bare,
    /// and the stream ends when the connection closes.
    @Test func http10StreamGetsTheBareBlock() async throws {
        let subscribed = Latch()
        let events = PublishRelay<EncodedEvent>()
        let router = Router()
        router.get("/events") { _ -> Signal<EncodedEvent> in
            events.asObservable().do(onSubscribed: { subscribed.open() }).asSignal(onErrorSignalWith: .empty())
        }
        let server = try startServer(router)
        let client = try server.client()
        try client.send("GET /events HTTP/1.0\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        #expect(head.header("Transfer-Encoding") == nil)
        await subscribed.wait()
        events.accept(EncodedEvent(ServerSentEvent(id: "9", data: "bare")))
        let block = "id: 9\ndata: bare\n\n"
        #expect(String(decoding: try client.readBytes(block.utf8.count), as: UTF8.self) == block)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// Reads chunks until one whole event (ending in a blank line) arrived.
    static func readEvent(_ client: TestClient) throws -> String {
        var text = ""
        while !text.hasSuffix("\n\n") {
            guard let chunk = try client.readChunk() else { throw TestClient.Failure(description: "stream ended") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    @Test func framingHeadersAndHeartbeat() async throws {
        let subscribed = Latch()
        let events = PublishRelay<ServerSentEvent>()
        let router = Router()
        router.get("/events") { _ -> Signal<ServerSentEvent> in
            events.asSignal().do(onSubscribe: { subscribed.open() })
        }
        let server = try startServer(router, settings: ServerSettings(heartbeatInterval: .milliseconds(50)))
        let client = try server.client()
        try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.header("Cache-Control") == "no-cache")
        #expect(head.header("X-Accel-Buffering") == "no")
        #expect(head.header("Transfer-Encoding") == "chunked")
        await subscribed.wait()
        events.accept(ServerSentEvent(id: "1", event: "change", data: "a\nb"))
        // A heartbeat may come first if the machine is slow; skip comments.
        var event = try Self.readEvent(client)
        while event.hasPrefix(":") { event = try Self.readEvent(client) }
        #expect(event == "id: 1\nevent: change\ndata: a\ndata: b\n\n")
        // Nothing more is sent: the next thing on the wire is a heartbeat comment.
        #expect(try Self.readEvent(client) == ": heartbeat\n\n")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func driverStartsWithTheCurrentValue() async throws {
        let state = BehaviorRelay(value: ServerSentEvent(event: "state", data: "v1"))
        let router = Router()
        router.get("/live") { _ -> Driver<ServerSentEvent> in state.asDriver() }
        let server = try startServer(router)
        let client = try server.client()
        try client.send("GET /live HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readHead()
        #expect(try Self.readEvent(client) == "event: state\ndata: v1\n\n")
        state.accept(ServerSentEvent(event: "state", data: "v2"))
        #expect(try Self.readEvent(client) == "event: state\ndata: v2\n\n")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func slowClientIsDroppedWhileFastOneKeepsReceiving() async throws {
        let subscriptions = Atomic<Int>(0)
        let bothSubscribed = Latch()
        let slowDisposed = Latch()
        let events = PublishRelay<ServerSentEvent>()
        let router = Router()
        router.get("/events") { request -> Signal<ServerSentEvent> in
            let isSlow = request.query["who"] == "slow"
            return events.asSignal().do(
                onSubscribe: { if subscriptions.add(1, ordering: .relaxed).newValue == 2 { bothSubscribed.open() } },
                onDispose: { if isSlow { slowDisposed.open() } }
            )
        }
        let server = try startServer(
            router,
            settings: ServerSettings(maxQueuedEventBytes: 32 * 1024),
            socketSendBufferSize: 16 * 1024
        )
        let slow = try server.client()
        slow.setReceiveBuffer(4 * 1024)
        let fast = try server.client()
        try slow.send("GET /events?who=slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try fast.send("GET /events?who=fast HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try fast.readHead()
        await bothSubscribed.wait()

        // The fast client reads while events are produced, at most 8 behind;
        // the slow one never reads. About 1 MB in all: far more than the slow
        // client's kernel buffers and queue hold.
        let payload = String(repeating: "x", count: 1000)
        let count = 1000
        let window = 8
        func readFast(_ index: Int) throws {
            var event = try Self.readEvent(fast)
            while event.hasPrefix(":") { event = try Self.readEvent(fast) }
            #expect(event.hasPrefix("id: \(index)\n"))
        }
        for index in 0..<count {
            events.accept(ServerSentEvent(id: String(index), data: payload))
            if index >= window { try readFast(index - window) }
        }
        for index in (count - window)..<count { try readFast(index) }
        await slowDisposed.wait()
        #expect(server.openConnections == 1)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func shutdownEndsStreamsCleanly() async throws {
        let subscribed = Latch()
        let disposed = Latch()
        let events = PublishRelay<ServerSentEvent>()
        let router = Router()
        router.get("/events") { _ -> Signal<ServerSentEvent> in
            events.asSignal().do(onSubscribe: { subscribed.open() }, onDispose: { disposed.open() })
        }
        let server = try startServer(router)
        let client = try server.client()
        try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readHead()
        await subscribed.wait()
        await server.shutdown(gracePeriod: .seconds(5))
        #expect(try client.readChunk() == nil)  // the last chunk: a clean end
        #expect(try client.isClosedByServer())
        #expect(disposed.isOpen)
    }
}
