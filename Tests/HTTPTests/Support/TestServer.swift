@testable import HTTP
import Base
import Logging
import Rx
import Synchronization

/// Starts a server on an ephemeral port of 127.0.0.1 for one test.
func startServer(
    _ router: Router,
    host: String = "127.0.0.1",
    settings: ServerSettings = ServerSettings(),
    limits: ParserLimits = ParserLimits(),
    lingerTimeout: Duration = .milliseconds(500),
    socketSendBufferSize: Int? = nil,
    tls: TLSConfiguration? = nil,
    workerCount: Int = 2
) throws -> HTTPServer {
    var logger = Logger(label: "test.http")
    logger.logLevel = .error
    let configuration = ServerConfiguration(host: host, port: 0, workerCount: workerCount, limits: limits, lingerTimeout: lingerTimeout, socketSendBufferSize: socketSendBufferSize, tls: tls, settings: settings)
    let server = HTTPServer(configuration: configuration, router: router, logger: logger)
    try server.start()
    return server
}

extension HTTPServer {
    /// A client connected to this server.
    func client(receiveTimeout: Int = 5) throws -> TestClient {
        try TestClient(port: port!, receiveTimeout: receiveTimeout)
    }
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
