import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket: accepts connections and hands them to the workers
/// round-robin; over the connection limit, a connection is answered 503.
/// The HTTPS listener's connections get a TLS session from the server's
/// current TLS context; the redirect listener has its own responder.
final class Listener: @unchecked Sendable {
    let fd: Int32
    let port: Int
    private let core: ServerCore
    private let workers: [Worker]
    private let responder: any RequestResponder
    private let secure: Bool
    private let queue = DispatchQueue(label: "signalbox.http.accept")
    private var source: DispatchSourceRead?
    private var next = 0
    private var paused = false
    private var stopped = false

    init(core: ServerCore, workers: [Worker], port: Int, secure: Bool, responder: any RequestResponder) throws {
        let configuration = core.configuration
        (fd, self.port) = try Socket.listen(host: configuration.host, port: port, backlog: configuration.backlog)
        self.core = core
        self.workers = workers
        self.secure = secure
        self.responder = responder
    }

    func start() {
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.acceptPending() }  // weak: see deinit
        source.setCancelHandler { [fd] in Glibc.close(fd) }
        self.source = source
        source.resume()
    }

    /// A server dropped without shutdown() still closes its socket. No handler can be
    /// running: it holds a strong reference while it runs.
    deinit {
        guard !stopped else { return }
        if let source {
            if paused { source.resume() }
            source.cancel()
        } else {
            Glibc.close(fd)
        }
    }

    /// Stops accepting; the socket closes once Dispatch lets go of it.
    func stop() {
        queue.sync {
            guard !stopped else { return }
            stopped = true
            guard let source else {
                // Never started (another listener failed to bind): nothing watches the socket.
                Glibc.close(fd)
                return
            }
            if paused { source.resume() }
            paused = false
            source.cancel()
            self.source = nil
        }
    }

    private func acceptPending() {
        for _ in 0..<64 {
            let connection: Int32
            let remote: String
            switch Socket.accept(fd) {
            case .accepted(let fd, let address):
                (connection, remote) = (fd, address)
            case .none:
                return
            case .exhausted(let error):
                // The pending connection stays queued; pause instead of spinning on it.
                core.logger.error("accept failed, pausing 100 ms", metadata: ["errno": "\(error)"])
                source?.suspend()
                paused = true
                queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [weak self] in
                    guard let self, self.paused else { return }
                    self.paused = false
                    self.source?.resume()
                }
                return
            }
            if let size = core.configuration.socketSendBufferSize {
                try? Socket.setOption(connection, SOL_SOCKET, SO_SNDBUF, Int32(clamping: size))
            }
            let limit = core.settings.withLock { $0.maxConnections }
            let rejecting = core.openConnections.load(ordering: .relaxed) >= limit || core.draining.load(ordering: .relaxed)
            // Counted here, not when the worker takes it, so a burst cannot overshoot the limit.
            if !rejecting { core.connectionOpened() }
            let worker = workers[next]
            next = (next + 1) % workers.count
            let tls = secure ? core.tlsContext.withLock { $0 } : nil
            worker.adopt(fd: connection, remote: remote, rejecting: rejecting, tls: tls, responder: responder)
        }
    }
}
