@testable import HTTP
import HTTPTesting
import HTTPTypes
import Rx
import Synchronization
import Testing

/// Server-sent events over real sockets: framing, heartbeats, slow clients, shutdown.
@Suite("Event streams", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
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
        try await router.withTestClient(.live(workerCount: 2)) { client in
            var connections: [RawConnection] = []
            for _ in 0..<clients {
                let connection = try client.connect()
                try await connection.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try await connection.readHead()
                connections.append(connection)
            }
            await allSubscribed.wait()
            let shared = EncodedEvent(ServerSentEvent(id: "1", event: "change", data: "{\"x\":1}"))
            events.accept(shared)
            events.accept(shared)
            for connection in connections {
                #expect(try await connection.readEventBlockPastComments() == "id: 1\nevent: change\ndata: {\"x\":1}\n\n")
                #expect(try await connection.readEventBlockPastComments() == "id: 1\nevent: change\ndata: {\"x\":1}\n\n")
            }
        }
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
        try await router.withTestClient(.live) { client in
            let connection = try client.connect()
            try await connection.send("GET /events HTTP/1.0\r\nHost: x\r\n\r\n")
            let head = try await connection.readHead()
            #expect(head.header("Transfer-Encoding") == nil)
            await subscribed.wait()
            events.accept(EncodedEvent(ServerSentEvent(id: "9", data: "bare")))
            let block = "id: 9\ndata: bare\n\n"
            #expect(String(decoding: try await connection.readBytes(block.utf8.count), as: UTF8.self) == block)
        }
    }

    /// The next event block that is not a heartbeat comment (one may come first on a slow machine).
    static func readEvent(_ connection: RawConnection) async throws -> String {
        while let block = try await connection.readEventBlock() {
            if !block.hasPrefix(":") { return block }
        }
        throw TestFailure("the stream ended")
    }

    @Test func framingHeadersAndHeartbeat() async throws {
        let subscribed = Latch()
        let events = PublishRelay<ServerSentEvent>()
        let router = Router()
        router.get("/events") { _ -> Signal<ServerSentEvent> in
            events.asObservable().do(onSubscribed: { subscribed.open() }).asSignal(onErrorSignalWith: .empty())
        }
        try await router.withTestClient(.live(settings: ServerSettings(heartbeatInterval: .milliseconds(50)))) { client in
            let connection = try client.connect()
            try await connection.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try await connection.readHead()
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream")
            #expect(head.header("Cache-Control") == "no-cache")
            #expect(head.header("X-Accel-Buffering") == "no")
            #expect(head.header("Transfer-Encoding") == "chunked")
            await subscribed.wait()
            events.accept(ServerSentEvent(id: "1", event: "change", data: "a\nb"))
            #expect(try await Self.readEvent(connection) == "id: 1\nevent: change\ndata: a\ndata: b\n\n")
            // Nothing more is sent: the next thing on the wire is a heartbeat comment.
            #expect(try await connection.readEventBlock() == ": heartbeat\n\n")
        }
    }

    @Test func slowClientIsDroppedWhileFastOneKeepsReceiving() async throws {
        let subscriptions = Atomic<Int>(0)
        let bothSubscribed = Latch()
        let slowDisposed = Latch()
        let events = PublishRelay<ServerSentEvent>()
        let router = Router()
        router.get("/events") { request -> Signal<ServerSentEvent> in
            let isSlow = request.query["who"] == "slow"
            return events.asObservable().do(
                onSubscribed: { if subscriptions.add(1, ordering: .relaxed).newValue == 2 { bothSubscribed.open() } },
                onDispose: { if isSlow { slowDisposed.open() } }
            ).asSignal(onErrorSignalWith: .empty())
        }
        let transport = TestTransport.live(settings: ServerSettings(maxQueuedEventBytes: 32 * 1024), socketSendBufferSize: 16 * 1024)
        try await router.withTestClient(transport) { client in
            let slow = try client.connect()
            slow.setReceiveBuffer(4 * 1024)
            let fast = try client.connect()
            try await slow.send("GET /events?who=slow HTTP/1.1\r\nHost: x\r\n\r\n")
            try await fast.send("GET /events?who=fast HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await fast.readHead()
            await bothSubscribed.wait()

            // The fast client reads while events are produced, at most 8 behind;
            // the slow one never reads. About 1 MB in all: far more than the slow
            // client's kernel buffers and queue hold.
            let payload = String(repeating: "x", count: 1000)
            let count = 1000
            let window = 8
            func readFast(_ index: Int) async throws {
                #expect(try await Self.readEvent(fast).hasPrefix("id: \(index)\n"))
            }
            for index in 0..<count {
                events.accept(ServerSentEvent(id: String(index), data: payload))
                if index >= window { try await readFast(index - window) }
            }
            for index in (count - window)..<count { try await readFast(index) }
            await slowDisposed.wait()
            #expect(try client.liveServer.openConnections == 1)
        }
    }

    @Test func shutdownEndsStreamsCleanly() async throws {
        let subscribed = Latch()
        let disposed = Latch()
        let events = PublishRelay<ServerSentEvent>()
        let router = Router()
        router.get("/events") { _ -> Signal<ServerSentEvent> in
            events.asObservable().do(onSubscribed: { subscribed.open() }, onDispose: { disposed.open() }).asSignal(onErrorSignalWith: .empty())
        }
        try await router.withTestClient(.live) { client in
            let connection = try client.connect()
            try await connection.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await connection.readHead()
            await subscribed.wait()
            try await client.liveServer.shutdown(gracePeriod: TestTime.scaled(.seconds(5)))
            #expect(try await connection.readEventBlockPastComments() == nil)  // the last chunk: a clean end
            #expect(try await connection.isClosedByServer())
            #expect(disposed.isOpen)
        }
    }
}
