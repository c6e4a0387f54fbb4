@testable import HTTP
import Base
import HTTPTesting
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
        let port = try server.start()
        let client = try RawConnection(port: port)
        try await client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse().text == "ok")
        // The exchange left the connection before its bytes were written.
        #expect(responder.lastSink == nil)
        await server.shutdown(gracePeriod: TestTime.scaled(.seconds(1)))
    }

    /// A server dropped without `shutdown()` is freed, closes its port and its connections, and
    /// its workers' sweep timers (every 5 ms here) no longer reach them: they held their worker
    /// unowned once, which crashed when a timer fired after the worker was gone.
    @Test func aServerDroppedWithoutShutdownIsFreedAndClosesItsPortAndConnections() async throws {
        var logger = Logger(label: "test.lifetime")
        logger.logLevel = .error
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, settings: ServerSettings(headerReadTimeout: .milliseconds(20)))
        var server: HTTPServer? = HTTPServer(configuration: configuration, responder: WeakSinkResponder(), logger: logger)
        let port = try server!.start()
        let client = try RawConnection(port: port)
        try await client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse().text == "ok")
        weak let dropped = server
        server = nil
        #expect(try await client.isClosedByServer())
        var refused = false
        for _ in 0..<200 where !refused {  // the socket closes on the listener's queue, soon after
            refused = (try? RawConnection(port: port, receiveTimeout: .seconds(1))) == nil
            if !refused { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(dropped == nil)
        #expect(refused, "port \(port) still accepts connections")
        try await Task.sleep(for: .milliseconds(50))  // ten sweeps' worth of timer ticks, had they survived
    }
}
