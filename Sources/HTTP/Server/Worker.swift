import Base
import Dispatch
import Logging
import Rx
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One serial queue of the worker pool and the connections it runs (their host),
/// with a poller of its own that watches their sockets.
///
/// Everything a connection owns is touched only on its worker's queue, so
/// connections need no locks; the read buffer, response encoder (its date cache)
/// and metric label cache are shared by the worker's connections for the same reason.
final class Worker: ConnectionHost, @unchecked Sendable {
    /// Marks this worker's queue (and the queues that target it) with the worker's identity.
    /// One key for every worker of every server, so the value must tell the workers apart:
    /// an index would make worker 0 of one server current on worker 0 of another.
    private static let key = DispatchSpecificKey<ObjectIdentifier>()

    let index: Int
    let queue: DispatchQueue
    let core: ServerCore
    /// Scratch space for `recv`, reused by every connection of this worker.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let encoder: ResponseEncoder
    let metrics = HTTPMetrics()
    /// Where the event streams of this worker's connections deliver: a serial
    /// queue on this worker's queue, so an event reaches the connection in one hop.
    let eventScheduler: SerialDispatchQueueScheduler
    /// This worker's copy of the runtime settings (updated by `HTTPServer.apply`).
    private(set) var settings: ServerSettings
    /// The open connections by descriptor: a descriptor names one open socket at a time,
    /// and both adopting and closing run on this queue.
    private var connections: [Int32: Connection] = [:]
    private var poller: Poller?
    private var sweepTimer: DispatchSourceTimer?
    private var requestCounter: UInt64 = 0

    init(index: Int, core: ServerCore, settings: ServerSettings) {
        self.index = index
        self.core = core
        self.settings = settings
        encoder = ResponseEncoder(serverName: core.configuration.serverName, gzipThreshold: settings.gzipThreshold)
        queue = DispatchQueue(label: "signalbox.http.worker.\(index)", qos: .userInteractive)
        eventScheduler = SerialDispatchQueueScheduler(queue: queue, internalSerialQueueName: "signalbox.http.worker.\(index).events")
        // Weak: a server dropped without shutdown() releases its workers; deinit then stops the poller.
        poller = Poller(name: "http-poller-\(index)", queue: queue) { [weak self] batch in
            self?.deliver(batch)
        }
        queue.setSpecific(key: Self.key, value: ObjectIdentifier(self))
    }

    deinit {
        sweepTimer?.cancel()
        readBuffer.deallocate()
    }

    /// True when the caller runs on this worker's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == ObjectIdentifier(self) }

    func start() {
        queue.async { self.scheduleSweep() }
    }

    /// Takes over an accepted socket; with a TLS context its bytes go through a TLS session.
    func adopt(fd: Int32, remote: String, rejection: Rejection?, tls: TLSContext?, responder: any RequestResponder) {
        queue.async {
            var transport = Transport.plain
            if let tls {
                guard let session = TLSSession(context: tls, fd: fd) else {
                    self.core.logger.error("cannot start a TLS session", metadata: ["remote": "\(remote)"])
                    close(fd)
                    if rejection == nil { self.core.connectionClosed(remote: remote) }
                    return
                }
                transport = .tls(session)
            }
            let connection = Connection(fd: fd, remote: remote, host: self, rejection: rejection, transport: transport, responder: responder)
            self.connections[fd] = connection
            self.poller?.watch(fd)
            connection.start()
        }
    }

    func apply(_ settings: ServerSettings) {
        queue.async {
            self.settings = settings
            self.encoder.gzipThreshold = settings.gzipThreshold
            self.scheduleSweep()
        }
    }

    // MARK: ConnectionHost

    var configuration: ServerConfiguration { core.configuration }
    var logger: Logger { core.logger }
    func streamOpened() { core.streamOpened() }
    func streamClosed() { core.streamClosed() }
    func droppedSlowClient() { core.gauges.droppedSSEClients.increment() }

    func requestCompleted(routeID: Int, route: String, method: String, status: Int, durationNanoseconds: UInt64) {
        metrics.recordRequest(routeID: routeID, route: route, method: method, status: status, durationNanoseconds: durationNanoseconds)
    }

    func connectionClosed(_ connection: Connection, remote: String, counted: Bool) {
        poller?.unwatch(connection.fd)
        connections[connection.fd] = nil
        if counted { core.connectionClosed(remote: remote) }
    }

    /// Asks every connection to finish what it is doing and close; with `endingStreams` false,
    /// open event streams go on (until a later `drain()`).
    func drain(endingStreams: Bool = true) {
        queue.async { for connection in self.connections.values { connection.drain(endingStreams: endingStreams) } }
    }

    /// Closes every connection now, cancelling what runs for them.
    func abortAll() {
        queue.async { for connection in Array(self.connections.values) { connection.abort(reason: "shutdown") } }
    }

    func stop() {
        queue.async {
            for connection in Array(self.connections.values) { connection.abort(reason: "stopped") }
            self.sweepTimer?.cancel()
            self.sweepTimer = nil
            self.poller?.stop()
        }
    }

    /// A batch of readiness from the poller; a descriptor without a connection was closed
    /// after the poller saw it (or belongs to a newer connection, which then reads nothing).
    private func deliver(_ batch: [Readiness]) {
        for readiness in batch {
            connections[readiness.fd]?.ready(readiness)
        }
    }

    /// A request ID unique in this process: a random process prefix, the
    /// worker and a counter in hex (formatted by hand: this runs per request).
    func nextRequestID() -> String {
        requestCounter &+= 1
        var bytes = core.requestIDPrefix
        bytes.append(hex: index)
        bytes.append(UInt8(ascii: "-"))
        bytes.append(hex: Int(truncatingIfNeeded: requestCounter))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Timeouts and heartbeats are checked by one periodic sweep per worker,
    /// so a request costs no timer calls. The period is a quarter of the
    /// shortest timeout, between 5 ms and 1 s. The sweep touches every
    /// connection (thousands of idle event streams), so the short linger of a
    /// closing connection has its own timer rather than pacing it.
    private func scheduleSweep() {
        let s = settings
        var timeouts = [s.headerReadTimeout, s.bodyReadTimeout, s.idleTimeout, s.writeTimeout, s.heartbeatInterval]
        if let tls = core.configuration.tls { timeouts.append(tls.handshakeTimeout) }
        let shortest = timeouts.map(\.nanoseconds).min() ?? 1_000_000_000
        let period = min(max(shortest / 4, 5_000_000), 1_000_000_000)
        sweepTimer?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .nanoseconds(Int(period)), repeating: .nanoseconds(Int(period)), leeway: .nanoseconds(Int(period / 10)))
        // Weak: a server dropped without shutdown() releases its workers while their timers
        // still tick (an unowned self crashed a test under TSan); deinit cancels the timer.
        timer.setEventHandler { [weak self] in
            self?.sweep(now: MonotonicClock.nanoseconds())
        }
        timer.resume()
        sweepTimer = timer
    }

    /// Checks every connection's timeouts and heartbeats as of `now`. On `queue`.
    func sweep(now: UInt64) {
        for connection in Array(connections.values) { connection.checkTimers(now: now) }
    }
}
