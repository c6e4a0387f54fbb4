import Base
import Foundation
import HTTPTesting
import Logging
import Rx
import Search
import Testing
@testable import Signalbox

/// A replica's shutdown over real sockets, step by step (issue 27): not ready while still
/// serving everything, then no new connections, then the event streams end cleanly.
/// (That requests in flight finish before streams end is `DrainOrderTests`, in HTTPTests.)
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 1))))
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

        let stream = try RawConnection(port: port)
        try await stream.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await stream.readHead().status.code == 200)
        #expect(try await Self.exchange(port, "GET /readyz").hasPrefix("HTTP/1.1 200"))

        let shutdown = Task { await service.shutdown() }
        await Self.reach(.notReady, service)
        // Step 1: not ready, and still serving everything: new connections, searches, writes, events.
        #expect(try await Self.exchange(port, "GET /readyz").hasPrefix("HTTP/1.1 503"))
        #expect(try await Self.exchange(port, "GET /search?q=par").hasPrefix("HTTP/1.1 200"))
        let body = #"{"name":"Drainville"}"#
        let put = "PUT /documents/drain-1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.key)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        #expect(try await Self.exchange(port, raw: put).hasPrefix("HTTP/1.1 204"))
        #expect(try await Self.event(1, on: stream)?.contains("Drainville") == true)

        await service.shutdown()  // the second signal
        await shutdown.value
        // Steps 2 and 3: no new connections; the open stream ended with its last chunk (a
        // connection closed without it fails the read), then the server closed it.
        #expect(throws: (any Error).self) { try RawConnection(port: port) }
        while try await stream.readEventBlock() != nil {}
        #expect(try await stream.isClosedByServer())
        #expect(steps.withLock { $0 } == [.serving, .notReady, .finishingRequests, .closingStreams, .stopped])
    }

    /// The event-stream block of change `id`, skipping the ones before it; nil if the stream ends first.
    static func event(_ id: Int, on stream: RawConnection) async throws -> String? {
        while let block = try await stream.readEventBlock() {
            if block.contains("id: \(id)\n") { return block }
        }
        return nil
    }

    /// Completes once the service's shutdown has reached `step`.
    static func reach(_ step: DrainStep, _ service: SignalboxService) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = service.drainStep.asObservable().filter { $0 == step }.take(1).subscribe(onCompleted: { done.resume() })
        }
    }

    /// One request on a connection of its own; the response's head and body as text.
    static func exchange(_ port: Int, _ requestLine: String) async throws -> String {
        try await exchange(port, raw: "\(requestLine) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    }

    static func exchange(_ port: Int, raw: String) async throws -> String {
        let client = try RawConnection(port: port)
        try await client.send(raw)
        return String(decoding: try await client.readToEnd(), as: UTF8.self)
    }
}
