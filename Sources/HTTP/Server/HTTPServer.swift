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
/// one per usable core; no thread waits on a socket.
public final class HTTPServer: Sendable {
    let core: ServerCore
    private let workers: [Worker]
    private let listener = Locked<Listener?>(nil)
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

    /// Binds the listening socket and starts serving; returns the bound port.
    @discardableResult
    public func start() throws -> Int {
        let listener = try Listener(core: core, workers: workers)
        self.listener.withLock { $0 = listener }
        for worker in workers { worker.start() }
        listener.start()
        core.logger.info("listening", metadata: ["host": "\(core.configuration.host)", "port": "\(listener.port)", "workers": "\(workers.count)"])
        lifecycleEvents.accept(.started(port: listener.port))
        return listener.port
    }

    /// The bound port (useful with port 0); nil before `start()`.
    public var port: Int? { listener.withLock { $0?.port } }

    /// The settings in force.
    public var settings: ServerSettings { core.settings.withLock { $0 } }

    /// Number of open client connections.
    public var openConnections: Int { core.openConnections.load(ordering: .relaxed) }

    /// Changes timeouts, limits and gzip on the running server. Each connection
    /// uses the new values from its next check; nothing is interrupted.
    public func apply(_ settings: ServerSettings) {
        core.settings.withLock { $0 = settings }
        for worker in workers { worker.apply(settings) }
        core.logger.info("settings applied")
    }

    /// Stops accepting, lets requests in flight finish and ends event streams
    /// cleanly, closes idle connections; after `gracePeriod` closes whatever is
    /// still open (cancelling its work). Returns when every connection is closed.
    public func shutdown(gracePeriod: Duration = .seconds(10)) async {
        guard !core.draining.exchange(true, ordering: .acquiringAndReleasing) else {
            await core.waitUntilNoConnections()
            return
        }
        lifecycleEvents.accept(.draining)
        core.logger.info("draining", metadata: ["open_connections": "\(openConnections)"])
        listener.withLock { $0?.stop() }
        for worker in workers { worker.drain() }

        let workers = self.workers
        let deadline = DispatchWorkItem {
            for worker in workers { worker.abortAll() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: gracePeriod.nanoseconds)), execute: deadline)
        await core.waitUntilNoConnections()
        deadline.cancel()
        for worker in workers { worker.stop() }
        core.logger.info("stopped")
        lifecycleEvents.accept(.stopped)
    }

    /// Applies every settings value `settings` emits (e.g. a `ControlProperty`
    /// or `BehaviorRelay` of the service's live configuration). Dispose the
    /// result to stop following it.
    public func apply<Source: ObservableConvertibleType>(_ settings: Source) -> Disposable where Source.Element == ServerSettings {
        settings.asObservable().subscribe(onNext: { [weak self] in self?.apply($0) })
    }
}

/// A change in a server's life: `started` (with the bound port), `draining`
/// (shutdown began, no new connections), `stopped` (every connection closed).
public enum LifecycleEvent: Sendable, Hashable {
    case started(port: Int)
    case draining
    case stopped
}

