@testable import HTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

/// Timeouts and the connection limit over real sockets, with short settings.
@Suite("Limits and timeouts")
struct LimitsTests {
    static func router() -> Router {
        let router = Router()
        router.get("/hello") { _ in "hello" }
        router.post("/upload") { request in "\(request.body.count)" }
        return router
    }

    @Test func slowlorisGets408AndIsClosed() async throws {
        let server = try startServer(Self.router(), settings: ServerSettings(headerReadTimeout: .milliseconds(200)))
        let client = try server.client()
        // Trickle header lines: the timeout runs from the first byte, not from the last.
        try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n")
        for index in 0..<6 {
            usleep(50_000)
            guard (try? client.send("X-Slow-\(index): y\r\n")) != nil else { break }
        }
        let reply = try client.readResponse()
        #expect(reply.status == 408)
        #expect(reply.header("Content-Type") == "application/problem+json")
        #expect(reply.header("Connection") == "close")
        #expect(try client.isClosedByServer())
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func slowBodyGets408() async throws {
        let server = try startServer(Self.router(), settings: ServerSettings(bodyReadTimeout: .milliseconds(150)))
        let client = try server.client()
        try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        let reply = try client.readResponse()
        #expect(reply.status == 408)
        #expect(try client.isClosedByServer())
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        let server = try startServer(Self.router(), settings: ServerSettings(idleTimeout: .milliseconds(100)))
        let client = try server.client()
        try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "hello")
        #expect(try client.isClosedByServer())
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func overMaxConnectionsGets503() async throws {
        let server = try startServer(Self.router(), settings: ServerSettings(maxConnections: 1))
        let first = try server.client()
        try first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try first.readResponse().status == 200)

        let second = try server.client()
        let reply = try second.readResponse()
        #expect(reply.status == 503)
        #expect(reply.header("Retry-After") == "1")
        #expect(try second.isClosedByServer())

        // The first connection is unaffected.
        try first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try first.readResponse().status == 200)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func overMaxConnectionsPerClientGets429AndFreesItsSlotOnClose() async throws {
        let server = try startServer(Self.router(), settings: ServerSettings(maxConnectionsPerClient: 2))
        var first: TestClient? = try server.client()
        let second = try server.client()
        for client in [first!, second] {
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        let third = try server.client()
        let reply = try third.readResponse()
        #expect(reply.status == 429)
        #expect(reply.header("Retry-After") == "1")
        #expect(reply.header("Content-Type") == "application/problem+json")
        #expect(try third.isClosedByServer())

        // A refused connection is not counted; one that closes gives its slot back.
        first = nil  // deinit closes it
        var status = 0
        for _ in 0..<200 where status != 200 {
            let next = try server.client()
            try? next.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            status = (try? next.readResponse().status) ?? 0
            if status != 200 { usleep(5_000) }
        }
        #expect(status == 200)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func settingsApplyToARunningServer() async throws {
        let server = try startServer(Self.router())
        let first = try server.client()
        try first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try first.readResponse().status == 200)
        server.apply(ServerSettings(maxConnections: 1))
        #expect(server.settings.maxConnections == 1)
        let second = try server.client()
        #expect(try second.readResponse().status == 503)
        await server.shutdown(gracePeriod: .seconds(1))
    }
}

@Suite("Write timeout", .timeLimit(.minutes(1)))
struct WriteTimeoutTests {
    @Test func clientThatStopsReadingIsClosed() async throws {
        let big = [UInt8](repeating: 0x61, count: 8 << 20)
        let handled = Latch()
        let router = Router()
        router.get("/big") { _ in
            handled.open()
            return big
        }
        let server = try startServer(
            router,
            settings: ServerSettings(writeTimeout: .milliseconds(150), gzipThreshold: nil),
            socketSendBufferSize: 16 * 1024
        )
        let client = try server.client()
        client.setReceiveBuffer(4 * 1024)
        try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        await handled.wait()
        await server.core.waitUntilNoConnections()
        // Closed by the server long before the 8 MiB body could have been sent.
        let received = try client.readToEnd()
        #expect(received.count < big.count)
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
