import HTTP
import HTTPTesting
import HTTPTypes
import Rx
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// HTTPTesting's own promises, over both transports: what a test sees is the same.
@Suite("Test client", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct TestClientTests {
    static func router() -> Router {
        let router = Router()
        router.get("/events") { request -> Signal<ServerSentEvent> in
            guard request.query["topic"] != nil else { throw HTTPError(.badRequest, detail: "topic is required") }
            return Signal.just(ServerSentEvent(id: "1", event: "hello", data: "first\nsecond"))
        }
        router.post("/echo") { request in
            "\(request.method.rawValue) \(request.headerFields[.contentType] ?? "-") \(request.body.count):" + String(decoding: request.body, as: UTF8.self)
        }
        return router
    }

    /// A stream route that answers with a problem gives the whole response as the head, and no events.
    @Test(arguments: TestTransport.all)
    func aStreamAnsweredWithAProblemHasNoEvents(over transport: TestTransport) async throws {
        try await Self.router().withTestClient(transport) { client in
            let refused = try await client.stream("/events")
            #expect(refused.head.status == .badRequest)
            #expect(refused.head.headerFields[.contentType] == "application/problem+json")
            #expect(refused.head.text.contains("topic is required"))
            #expect(try await refused.next() == nil)
        }
    }

    /// Multi-line data comes back joined; a stream that completes ends, and `execute` of it
    /// answers with its events as the body.
    @Test(arguments: TestTransport.all)
    func aCompletedStreamEndsAndExecuteGetsItWhole(over transport: TestTransport) async throws {
        try await Self.router().withTestClient(transport) { client in
            let stream = try await client.stream("/events?topic=a")
            #expect(try await stream.next(5) == [TestEvent(id: "1", event: "hello", data: "first\nsecond")])
            let whole = try await client.execute(.get, "/events?topic=a")
            #expect(whole.status == .ok)
            #expect(whole.text == "id: 1\nevent: hello\ndata: first\ndata: second\n\n")
        }
    }

    /// The request arrives as sent: method, fields and body (over the wire with its length).
    @Test(arguments: TestTransport.all)
    func aRequestArrivesAsSent(over transport: TestTransport) async throws {
        try await Self.router().withTestClient(transport) { client in
            let response = try await client.execute(.post, "/echo", headerFields: [.contentType: "text/plain"], body: Array("héllo".utf8))
            #expect(response.text == "POST text/plain 6:héllo")
        }
    }

    @Test func rawConnectionsNeedTheLiveTransport() async throws {
        try await Self.router().withTestClient(.inProcess) { client in
            #expect(client.server == nil && client.port == nil)
            #expect(throws: TestClientError.self) { try client.connect() }
        }
    }

    /// A refused connect closes its socket once. The throw runs the connection's deinit (every
    /// stored property was set), which closed the number a second time: by then, on another
    /// thread, another test's socket or file, whose sends then failed (errno 88, ENOTSOCK). On one
    /// thread the second close finds the number free and leaves EBADF in errno: that is checked.
    @Test func aRefusedConnectClosesItsSocketOnce() throws {
        let port = try Self.portNobodyListensOn()
        errno = 0
        #expect(throws: TestClientError.self) { try RawConnection(port: port) }
        #expect(errno != EBADF, "the refused connection's socket was closed twice")
    }

    /// A test's connection is not inherited by the child processes tests start (psql, a
    /// PostgreSQL server): a copy there would keep the socket open after the test closed or
    /// reset it, and the server would not see that.
    @Test func aRawConnectionIsClosedOnExec() async throws {
        try await Self.router().withTestClient(.live) { client in
            let connection = try client.connect()
            #expect(fcntl(connection.descriptor, F_GETFD) & FD_CLOEXEC != 0)
        }
    }

    /// A loopback port bound and closed again: nothing listens there.
    static func portNobodyListensOn() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

