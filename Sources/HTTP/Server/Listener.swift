import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
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
    /// Out of descriptors since this time (nil: accepting normally), the pauses of this
    /// episode, and the next pause: logged once per episode, not per failed accept.
    private var exhaustedSince: ContinuousClock.Instant?
    private var pausesThisEpisode = 0
    private var nextPause = Listener.firstPause
    static let firstPause = Duration.milliseconds(10)
    static let longestPause = Duration.milliseconds(500)
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
        source.setCancelHandler { [fd] in close(fd) }
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
            close(fd)
        }
    }

    /// Stops accepting; the socket closes once Dispatch lets go of it.
    func stop() {
        queue.sync {
            guard !stopped else { return }
            stopped = true
            guard let source else {
                // Never started (another listener failed to bind): nothing watches the socket.
                close(fd)
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
                if exhaustedSince != nil { nextPause = Self.firstPause }
            case .none:
                // The episode ends once the queue is drained: while it still holds connections
                // that arrived out of descriptors, the next accept may run out again.
                if exhaustedSince != nil { endExhaustion() }
                return
            case .exhausted(let error):
                pauseAccepting(errno: error)
                return
            }
            if let size = core.configuration.socketSendBufferSize {
                try? Socket.setOption(connection, SOL_SOCKET, SO_SNDBUF, Int32(clamping: size))
            }
            let (limit, perClient) = core.settings.withLock { ($0.maxConnections, $0.maxConnectionsPerClient) }
            var rejection: Rejection?
            if core.openConnections.load(ordering: .relaxed) >= limit || core.draining.load(ordering: .relaxed) {
                rejection = .overloaded
            } else if !core.clientConnections.open(remote, limit: perClient) {
                rejection = .tooManyFromClient
            }
            // Counted here, not when the worker takes it, so a burst cannot overshoot the limit.
            if rejection == nil { core.connectionOpened() }
            let worker = workers[next]
            next = (next + 1) % workers.count
            let tls = secure ? core.tlsContext.withLock { $0 } : nil
            worker.adopt(fd: connection, remote: remote, rejection: rejection, tls: tls, responder: responder)
        }
    }

    /// Out of descriptors (or memory): the pending connection stays queued. Retrying at once
    /// would spin on it, so the read source pauses, 10 ms at first and twice as long each time
    /// up to 500 ms, until an accept succeeds. Logged when the episode starts and when the
    /// queue is drained.
    private func pauseAccepting(errno error: Int32) {
        if exhaustedSince == nil {
            exhaustedSince = .now
            pausesThisEpisode = 0
            nextPause = Self.firstPause
            core.logger.warning(
                "out of descriptors: accepting paused until a connection closes",
                metadata: ["errno": "\(error)", "open_connections": "\(core.openConnections.load(ordering: .relaxed))"])
        }
        pausesThisEpisode += 1
        let pause = nextPause
        nextPause = min(nextPause * 2, Self.longestPause)
        source?.suspend()
        paused = true
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(pause.nanoseconds))) { [weak self] in
            guard let self, self.paused else { return }
            self.paused = false
            self.source?.resume()
        }
    }

    private func endExhaustion() {
        guard let since = exhaustedSince else { return }
        exhaustedSince = nil
        core.logger.warning(
            "accepting again after running out of descriptors",
            metadata: ["paused_for": "\(ContinuousClock.now - since)", "pauses": "\(pausesThisEpisode)"])
    }
}
