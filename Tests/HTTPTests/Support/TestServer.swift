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

/// A one-shot gate to await from a test: `open()` releases every waiter, earlier or later.
/// A wait ends too when its task is cancelled (a suite's time limit cancels a test that runs
/// too long): a latch that never opens fails the test instead of hanging the run.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    var isOpen: Bool { state.withLock { $0.isOpen } }

    func wait() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

/// Waits for `operation`, which cannot be cancelled (a server's own wait), and returns when
/// it ends or when the task is cancelled (by a suite's time limit), whichever comes first:
/// a server that never gets there fails the test instead of hanging the run.
func untilCancelled(_ operation: @escaping @Sendable () async -> Void) async {
    let done = Latch()
    Task {
        await operation()
        done.open()
    }
    await done.wait()
}
