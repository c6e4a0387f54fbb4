@testable import HTTP
import Logging
import Rx
import Testing

/// Answers at once and remembers the last sink weakly, to see it freed.
final class WeakSinkResponder: RequestResponder, @unchecked Sendable {
    private let lock = Locked<Void>(())
    private weak var _lastSink: ResponseSink?
    var lastSink: ResponseSink? { lock.withLock { _ in _lastSink } }
    let allowedMethods = ["GET"]

    func respond(to request: Request, sink: ResponseSink) {
        lock.withLock { _ in _lastSink = sink }
        sink.respond(Response(text: "ok"))
    }
}

@Suite("Lifetimes")
struct LifetimeTests {
    /// A finished request's sink and exchange are freed (they point at each
    /// other; the connection breaks the cycle when the exchange leaves).
    @Test func answeredRequestsAreFreed() async throws {
        let responder = WeakSinkResponder()
        var logger = Logger(label: "test.lifetime")
        logger.logLevel = .error
        let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0), responder: responder, logger: logger)
        try server.start()
        let client = try server.client()
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "ok")
        // The exchange left the connection before its bytes were written.
        #expect(responder.lastSink == nil)
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
