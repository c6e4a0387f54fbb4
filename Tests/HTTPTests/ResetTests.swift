@testable import HTTP
import HTTPTesting
import Testing

/// Clients that send part of a request and then reset (RST) the connection.
@Suite("Reset connections", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct ResetTests {
    /// The reset often arrives together with the bytes before it, and readiness announces that
    /// once (edge-triggered), so a connection that stopped reading after its short read held its
    /// slot until the header or body timeout (30 s here). It must close at once.
    @Test(arguments: ["GET /hello HTTP/1.1\r\nHost: x", "PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":"])
    func aResetAfterPartOfARequestClosesTheConnectionAtOnce(_ part: String) async throws {
        let router = Router()
        router.get("/hello") { _ in "hello" }
        router.put("/upload") { request in "\(request.body.count)" }
        try await router.withTestClient(.live(settings: ServerSettings(headerReadTimeout: .seconds(30), bodyReadTimeout: .seconds(30)))) { client in
            for _ in 0..<300 {
                let connection = try client.connect()
                try await connection.send(part)
                connection.reset()
            }
            // The server's count is an atomic with nothing to await: polled, for at most 10 s
            // scaled. Under the whole package's tests on two cores the 300 closed after 3.7 s (a
            // debug build), and after more than 2 s under ThreadSanitizer; a connection that
            // misses its reset stays until the header timeout, 30 s.
            let server = try client.liveServer
            let started = ContinuousClock.now, limit = TestTime.scaled(.seconds(10))
            while server.openConnections > 0 && ContinuousClock.now - started < limit {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(server.openConnections == 0, "still open after \(ContinuousClock.now - started)")
        }
    }
}
