import Base
import Dispatch
import Logging
import Rx
import Synchronization

/// An HTTP/1.1 server over non-blocking POSIX sockets and Dispatch.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 8080), router: router, logger: logger)
/// try server.start()
/// print(server.port)
/// ...
/// await server.shutdown(gracePeriod: .seconds(10))
/// ```
///
/// Connections are spread round-robin over a pool of serial worker queues,
/// one per usable core; no thread waits on a socket. With
/// `ServerConfiguration.tls` the listener speaks HTTPS (see `TLSConfiguration`).
public final class HTTPServer: Sendable {
    let core: ServerCore
    private let workers: [Worker]
    /// The main listener, then the HTTPS redirect listener if any.
    private let listeners = Locked<[Listener]>([])
    private let lifecycleEvents = PublishRelay<LifecycleEvent>()

    /// The server's life as it happens: `started`, `draining`, `stopped`.
    /// Events only (no replay, never an error), delivered serially.
    public let lifecycle: ControlEvent<LifecycleEvent>

    /// Creates a server that answers through `router`. Nothing is bound until `start()`.
    public convenience init(configuration: ServerConfiguration = ServerConfiguration(), router: Router, logger: Logger = Logger(label: "signalbox.http")) {
        self.init(configuration: configuration, responder: router.table(), logger: logger)
    }

    init(configuration: ServerConfiguration, responder: any RequestResponder, logger: Logger) {
        let core = ServerCore(configuration: configuration, responder: responder, logger: logger)
        let count = max(1, configuration.workerCount ?? Socket.usableCoreCount())
        self.core = core
        lifecycle = ControlEvent(events: lifecycleEvents)
        workers = (0..<count).map { Worker(index: $0, core: core, settings: configuration.settings) }
    }

    /// A server dropped without `shutdown()` stops at once: no more accepts, and every open
    /// connection is closed on its worker's queue (the workers live until that has run).
    deinit {
        for listener in listeners.withLock({ $0 }) { listener.stop() }
        for worker in workers { worker.stop() }
    }

    /// Binds the listening socket and starts serving; returns the bound port.
    /// With TLS, first loads and checks the certificate and key (`TLSError`).
    @discardableResult
    public func start() throws -> Int {
        let configuration = core.configuration
        if let tls = configuration.tls {
            let context = try TLSContext(tls)
            core.tlsContext.withLock { $0 = context }
        }
        let listener = try Listener(core: core, workers: workers, port: configuration.port, secure: configuration.tls != nil, responder: core.responder)
        var started = [listener]
        if let redirectPort = configuration.tls?.redirectPort {
            do {
                started.append(try Listener(core: core, workers: workers, port: redirectPort, secure: false, responder: HTTPSRedirect(httpsPort: listener.port)))
            } catch {
                listener.stop()
                throw error
            }
        }
        listeners.withLock { $0 = started }
        for worker in workers { worker.start() }
        for listener in started { listener.start() }
        var metadata: Logger.Metadata = ["host": "\(configuration.host)", "port": "\(listener.port)", "workers": "\(workers.count)"]
        if let context = core.tlsContext.withLock({ $0 }) {
            metadata["tls"] = "\(context.certificateSubject), valid until \(context.certificateNotAfter)"
        }
        if started.count > 1 { metadata["https_redirect_port"] = "\(started[1].port)" }
        core.logger.info("listening", metadata: metadata)
        lifecycleEvents.accept(.started(port: listener.port))
        return listener.port
    }

    /// The bound port (useful with port 0); nil before `start()`.
    public var port: Int? { listeners.withLock { $0.first?.port } }

    /// The bound port of the HTTPS redirect listener, if any.
    var redirectPort: Int? { listeners.withLock { $0.count > 1 ? $0[1].port : nil } }

    /// The settings in force.
    public var settings: ServerSettings { core.settings.withLock { $0 } }

    /// Number of open client connections.
    public var openConnections: Int { core.openConnections.load(ordering: .relaxed) }

    /// Changes timeouts, limits and gzip on the running server. Each connection
    /// uses the new values from its next check; nothing is interrupted.
    ///
    /// With TLS, also reads the certificate and key files again: when they
    /// pass the start-up checks, new connections use them (open ones keep
    /// their session); when not, an error is logged and the current ones stay.
    public func apply(_ settings: ServerSettings) {
        core.settings.withLock { $0 = settings }
        for worker in workers { worker.apply(settings) }
        core.logger.info("settings applied")
        if let tls = core.configuration.tls { reloadCertificate(tls) }
    }

    private func reloadCertificate(_ tls: TLSConfiguration) {
        do {
            let context = try TLSContext(tls)
            core.tlsContext.withLock { $0 = context }
            core.logger.info("TLS certificate loaded", metadata: ["subject": "\(context.certificateSubject)", "not_after": "\(context.certificateNotAfter)"])
        } catch {
            core.logger.error("TLS certificate reload refused; keeping the current certificate", metadata: ["error": "\(error.description)"])
        }
    }

    /// Stops accepting and closes idle connections, lets requests in flight finish, and only
    /// then ends event streams cleanly (so their clients reconnect to a server that still
    /// accepts, and events keep flowing while the last requests finish); after `gracePeriod`
    /// closes whatever is still open (cancelling its work). Returns when every connection is closed.
    public func shutdown(gracePeriod: Duration = .seconds(10)) async {
        guard !core.draining.exchange(true, ordering: .acquiringAndReleasing) else {
            await core.waitUntilNoConnections()
            return
        }
        lifecycleEvents.accept(.draining)
        core.logger.info("draining", metadata: ["open_connections": "\(openConnections)"])
        for listener in listeners.withLock({ $0 }) { listener.stop() }
        for worker in workers { worker.drain(endingStreams: false) }

        let workers = self.workers
        let deadline = DispatchWorkItem {
            for worker in workers { worker.abortAll() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: gracePeriod.nanoseconds)), execute: deadline)
        await core.waitUntilOnlyStreams()
        lifecycleEvents.accept(.closingStreams)
        core.logger.info("requests finished; closing event streams", metadata: ["open_connections": "\(openConnections)"])
        for worker in workers { worker.drain() }
        await core.waitUntilNoConnections()
        deadline.cancel()
        for worker in workers { worker.stop() }
        core.logger.info("stopped")
        lifecycleEvents.accept(.stopped)
    }

    /// Runs `body` on each worker's queue in turn, where none of that worker's connections
    /// can run meanwhile (tests order socket events against the worker's sweep with it).
    func onEachWorker(_ body: (Worker) -> Void) {
        for worker in workers { worker.queue.sync { body(worker) } }
    }
}

/// A change in a server's life: `started` (with the bound port), `draining`
/// (shutdown began, no new connections), `closingStreams` (the requests in flight are
/// answered; event streams end now), `stopped` (every connection closed).
public enum LifecycleEvent: Sendable, Hashable {
    case started(port: Int)
    case draining
    case closingStreams
    case stopped
}

