import Base
import Dispatch
import Rx
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One client connection: reads requests through the parser, hands complete ones to the
/// responder, writes responses in request order, and enforces the timeouts and bounds of
/// `ServerSettings`. Bytes go through its `Transport`: the socket itself, or a TLS session
/// over it.
///
/// Its sections are files of their own: reading and parsing (`Connection+Reading`), answering
/// and writing (`Connection+Responding`, with the queue of bytes in a `ResponseWriter`), and
/// the timers (`Connection+Timers`, with the times in a `ConnectionClock`); the access line is
/// `AccessLog`'s. This file holds its state and its life cycle.
///
/// Confined to its worker's queue (its state is touched nowhere else, so it needs no locks).
/// Its host watches the socket for the whole life of the connection (also while a handler
/// runs or an event stream is quiet) and hands it each readiness (`ready(_:)`), so a peer that
/// goes away is noticed at once and everything running for it is cancelled.
final class Connection: ResponseChannel, @unchecked Sendable {
    let fd: Int32
    let remote: String
    /// Strong: a handler or stream may still reach its connection after the worker is gone
    /// (an unowned reference would then crash). The cycle ends in close(), which removes the
    /// connection from its host, and every connection closes when its server stops or is freed.
    let host: any ConnectionHost
    let responder: any RequestResponder
    var transport: Transport
    /// Why the listener refused the connection (answered at once, then closed); nil when served.
    let rejection: Rejection?

    var parser: RequestParser
    /// The exchange whose head arrived and whose body is being read.
    var reading: Exchange?
    var input = InputState()
    let writer = ResponseWriter()
    var clock: ConnectionClock
    /// Requests not yet fully answered, oldest first; the first one is written.
    var exchanges: [Exchange] = []

    enum State { case open, lingering(since: UInt64), closed }
    var state = State.open
    /// Shutting down: requests in flight finish, streams end, nothing new is read.
    var draining = false

    init(fd: Int32, remote: String, host: any ConnectionHost, rejection: Rejection?, transport: Transport, responder: any RequestResponder) {
        self.fd = fd
        self.remote = remote
        self.host = host
        self.rejection = rejection
        self.transport = transport
        self.responder = responder
        self.parser = RequestParser(limits: host.configuration.limits)
        self.clock = ConnectionClock(openedAt: MonotonicClock.nanoseconds())
    }

    // MARK: Life cycle

    /// Called once its host watches the socket.
    func start() {
        if let rejection {
            // Over a connection limit: answer 503 (or 429 for one address) at once and close.
            let exchange = Exchange(head: nil, started: MonotonicClock.nanoseconds())
            exchanges.append(exchange)
            input.stopsRequests = true
            respond(rejection.response, to: exchange)
        }
    }

    /// Shutdown: finish the requests in flight, end event streams (unless `endingStreams` is
    /// false: the server first lets every other request finish), close when idle.
    func drain(endingStreams: Bool = true) {
        if case .lingering = state { close() }
        guard case .open = state else { return }
        draining = true
        input.stopsRequests = true
        if exchanges.isEmpty && parser.phase != .body {
            // Nothing started that could still be answered: close now.
            close()
            return
        }
        guard endingStreams else { return }
        for exchange in exchanges where exchange.isStream && !exchange.finished {
            exchange.closeAfter = true
            finishStream(exchange)
        }
    }

    /// Closes at once: cancels every handler and stream, drops unsent bytes.
    func abort(reason: String) {
        guard !isClosed else { return }
        if reason != "peer closed" {
            host.logger.debug("connection closed", metadata: ["remote": "\(remote)", "reason": "\(reason)"])
        }
        // Requests that never got their whole answer still get their access-log line.
        for exchange in exchanges where exchange.head != nil {
            AccessLog.record(exchange, outcome: reason, host: host)
        }
        close()
    }

    /// Whether bytes still count as requests: reading goes on, or a body is being finished.
    var acceptsRequestBytes: Bool { !input.stopsRequests || reading != nil }

    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    func close() {
        guard !isClosed else { return }
        state = .closed
        let cancelled = exchanges
        exchanges.removeAll()
        // A streamed body's handler learns that the rest will not come.
        reading?.bodyStream?.fail(.connectionClosed)
        reading = nil
        for exchange in cancelled {
            if exchange.isStream && exchange.responded && !exchange.finished { host.streamClosed() }
            exchange.retire(cancelling: true)
        }
        writer.discard()
        transport.closeOutput()
        // The host stops watching the socket first: its number is free for reuse once closed.
        host.connectionClosed(self, remote: remote, counted: rejection == nil)
        systemClose(fd)
    }

    /// What the socket became ready for. Readiness is edge-triggered: each handler
    /// goes on until the socket would block, or remembers to look again itself.
    func ready(_ readiness: Readiness) {
        guard !isClosed else { return }
        if readiness.writable && (writer.isBlocked || input.readWantsWrite) {
            writable()
            if isClosed { return }
        }
        if readiness.hangup { input.peerHungUp = true }
        if readiness.inputClosed { input.peerClosedInput = true }
        if readiness.readable || readiness.hangup {
            if !input.holdsReads {
                readable()
            } else if readiness.hangup {
                // Paused at the pipelining bound: nothing more will be read, and the peer is gone.
                abort(reason: "peer closed")
            }
            // Otherwise the read resumes when the oldest request is answered (`pump`).
        }
    }

    /// After the last response of a closing connection: stop sending, drain
    /// what the client still sends for a moment (so it sees the response and
    /// not a reset), then close.
    func beginClose() {
        guard case .open = state else { return }
        guard writer.isEmpty else { return }
        transport.closeOutput()
        shutdown(fd, Int32(SHUT_WR))
        state = .lingering(since: MonotonicClock.nanoseconds())
        // The linger is far shorter than the request timeouts the worker's sweep
        // is paced by, so it has a timer of its own (the sweep still checks it).
        let linger = host.configuration.lingerTimeout.nanoseconds
        host.queue.asyncAfter(deadline: .now() + .nanoseconds(Int(linger))) { [self] in
            if case .lingering = state { close() }
        }
        for exchange in exchanges { exchange.retire(cancelling: true) }
        exchanges.removeAll()
    }

    // MARK: ResponseChannel (the answering methods are in Connection+Responding)

    var isCurrent: Bool { host.isCurrent }
    func enqueue(_ work: @escaping @Sendable () -> Void) { host.queue.async(execute: work) }
    var eventScheduler: any SchedulerType { host.eventScheduler }
}
