import Base
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import Rx
import Search
import Testing
@testable import Signalbox

/// A replica's shutdown over real sockets, step by step (issue 27): not ready while still
/// serving everything, then no new connections, then the event streams end cleanly.
/// (That requests in flight finish before streams end is `DrainOrderTests`, in HTTPTests.)
@Suite(.timeLimit(.minutes(1)))
struct DrainTests {
    static let key = "drain-key"

    @Test func notReadyWhileStillServingThenStopAcceptingThenCloseStreams() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("drain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = Settings()
        settings.host = "127.0.0.1"
        settings.port = 0
        settings.storePath = directory.appendingPathComponent("store.sqlite").path
        settings.apiKey = Self.key
        settings.shutdownNotReadyDelay = 3600  // cut short below, as a second SIGTERM does
        let store = try SQLiteStore(path: settings.storePath)
        var logger = Logger(label: "test.drain")
        logger.logLevel = .error
        let service = try SignalboxService(
            settings: settings, logger: logger, base: [Document(id: "1", name: "Paris")], store: store,
            snapshot: try await store.snapshot())
        let port = try service.start()
        let steps = Locked<[DrainStep]>([])
        let recording = service.drainStep.subscribe(onNext: { step in steps.withLock { $0.append(step) } })
        defer { recording.dispose() }

        let stream = try DrainTestClient(port: port)
        try stream.transmit("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try stream.readHead().hasPrefix("HTTP/1.1 200"))
        #expect(try Self.exchange(port, "GET /readyz").hasPrefix("HTTP/1.1 200"))

        let shutdown = Task { await service.shutdown() }
        await Self.reach(.notReady, service)
        // Step 1: not ready, and still serving everything: new connections, searches, writes, events.
        #expect(try Self.exchange(port, "GET /readyz").hasPrefix("HTTP/1.1 503"))
        #expect(try Self.exchange(port, "GET /search?q=par").hasPrefix("HTTP/1.1 200"))
        let body = #"{"name":"Drainville"}"#
        let put = "PUT /documents/drain-1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.key)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        #expect(try Self.exchange(port, raw: put).hasPrefix("HTTP/1.1 204"))
        #expect(try stream.readUntil("id: 1\n").contains("Drainville"))

        await service.shutdown()  // the second signal
        await shutdown.value
        // Steps 2 and 3: no new connections; the open stream ended with its last chunk.
        #expect(throws: (any Error).self) { try DrainTestClient(port: port) }
        #expect(try stream.readUntil("0\r\n\r\n").hasSuffix("0\r\n\r\n"))
        #expect(steps.withLock { $0 } == [.serving, .notReady, .finishingRequests, .closingStreams, .stopped])
    }

    /// Completes once the service's shutdown has reached `step`.
    static func reach(_ step: DrainStep, _ service: SignalboxService) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = service.drainStep.asObservable().filter { $0 == step }.take(1).subscribe(onCompleted: { done.resume() })
        }
    }

    /// One request on a connection of its own; the response's head and body as text.
    static func exchange(_ port: Int, _ requestLine: String) throws -> String {
        try exchange(port, raw: "\(requestLine) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    }

    static func exchange(_ port: Int, raw: String) throws -> String {
        let client = try DrainTestClient(port: port)
        defer { client.disconnect() }
        try client.transmit(raw)
        return try client.readToEnd()
    }
}

/// A blocking loopback client: sends text, reads what comes back as text.
private final class DrainTestClient {
    let fd: Int32
    private var received = ""

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    func transmit(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw POSIXError(.EIO) }
    }

    /// What arrived until `marker` (inclusive of everything received so far); throws if the connection ends first.
    func readUntil(_ marker: String) throws -> String {
        while !received.contains(marker) {
            guard try receive() else { throw POSIXError(.ECONNRESET) }
        }
        defer { received = "" }
        return received
    }

    func readHead() throws -> String { try readUntil("\r\n\r\n") }

    func readToEnd() throws -> String {
        while try receive() {}
        return received
    }

    private func receive() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = recv(fd, &buffer, buffer.count, 0)
        if count < 0 { throw POSIXError(.ETIMEDOUT) }
        received += String(decoding: buffer[..<count], as: UTF8.self)
        return count > 0
    }

    func disconnect() { close(fd) }
}
