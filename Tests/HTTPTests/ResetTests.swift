@testable import HTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

/// Clients that send part of a request and then reset (RST) the connection.
@Suite("Reset connections", .timeLimit(.minutes(1)))
struct ResetTests {
    /// The reset often arrives together with the bytes before it, and readiness announces that
    /// once (edge-triggered), so a connection that stopped reading after its short read held its
    /// slot until the header or body timeout (30 s here). It must close at once.
    @Test(arguments: ["GET /hello HTTP/1.1\r\nHost: x", "PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":"])
    func aResetAfterPartOfARequestClosesTheConnectionAtOnce(_ part: String) async throws {
        let router = Router()
        router.get("/hello") { _ in "hello" }
        router.put("/upload") { request in "\(request.body.count)" }
        let server = try startServer(router, settings: ServerSettings(headerReadTimeout: .seconds(30), bodyReadTimeout: .seconds(30)))
        for _ in 0..<300 {
            let client = try server.client()
            try client.send(part)
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        }  // each client's deinit closes its socket: an RST
        var waited = 0
        while server.openConnections > 0 && waited < 400 {
            try await Task.sleep(for: .milliseconds(5))
            waited += 1
        }
        #expect(server.openConnections == 0, "still open after \(waited * 5) ms")
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
