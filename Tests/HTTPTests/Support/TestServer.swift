import Base
@testable import HTTP
import HTTPTesting

extension TestTransport {
    /// A live server on 127.0.0.1 with the arguments a test changes (two workers unless told).
    static func live(
        host: String = "127.0.0.1",
        settings: ServerSettings = ServerSettings(),
        limits: ParserLimits = ParserLimits(),
        lingerTimeout: Duration = .milliseconds(500),
        socketSendBufferSize: Int? = nil,
        tls: TLSConfiguration? = nil,
        workerCount: Int = 2
    ) -> TestTransport {
        .live(ServerConfiguration(
            host: host, workerCount: workerCount, limits: limits, lingerTimeout: lingerTimeout,
            socketSendBufferSize: socketSendBufferSize, tls: tls, settings: settings))
    }
}

extension TestClient {
    /// The live transport's server (a test of the server runs over the live transport only).
    var liveServer: HTTPServer {
        get throws {
            guard let server else { throw TestFailure("this test needs the live transport") }
            return server
        }
    }
}

/// A test's own failure, with what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A one-shot gate to await from a test: `open()` releases every waiter,
/// earlier or later.
final class Latch: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isOpen: Bool { state.withLock { $0.isOpen } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
