import Base
import Dispatch
import HTTPTypes
import Logging
import Rx
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One client connection: reads requests through the parser, hands complete
/// ones to the responder, writes responses in request order, and enforces
/// the timeouts and bounds of `ServerSettings`. Bytes go through its
/// `Transport`: the socket itself, or a TLS session over it.
///
/// Confined to its worker's queue. Its host watches the socket for the whole
/// life of the connection (also while a handler runs or an event stream is
/// quiet) and hands it each readiness (`ready(_:)`), so a peer that goes away
/// is noticed at once and everything running for it is cancelled.
final class Connection: ResponseChannel, @unchecked Sendable {
    let fd: Int32
    let remote: String
    /// Strong: a handler or stream may still reach its connection after the worker is gone
    /// (an unowned reference would then crash). The cycle ends in close(), which removes the
    /// connection from its host, and every connection closes when its server stops or is freed.
    private let host: any ConnectionHost
    private let responder: any RequestResponder
    private var transport: Transport
    private let openedAt: UInt64

    private var parser: RequestParser
    /// The last write stopped because the socket was full.
    private var writeBlocked = false
    /// The last write stopped because TLS needs the peer's next record.
    private var writeWaitsForRead = false
    /// A TLS read must send first (the write source then resumes the read).
    private var readWantsWrite = false

    /// Requests not yet fully answered, oldest first; the first one is written.
    private var exchanges: [Exchange] = []
    /// The exchange whose head arrived and whose body is being read.
    private var reading: Exchange?
    /// Bytes handed to the socket but not yet accepted by it.
    private var pending: [UInt8] = []
    private var pendingOffset = 0

    private enum State { case open, lingering(since: UInt64), closed }
    private var state = State.open
    /// No further requests are read (close requested, parse error, draining).
    private var stopReadingRequests = false
    private var draining = false
    private var readPaused = false
    /// The poller reported a reset or a hangup: reads go on until one fails.
    private var peerHungUp = false
    /// The poller reported that the peer closed its sending side: the end of input waits to be read.
    private var peerClosedInput = false
    private let rejection: Rejection?
    private var inReadHandler = false

    /// When the parser's phase last changed, for the header, body and idle timeouts.
    private var phaseSince: UInt64
    private var phase = RequestParser.Phase.idle
    private var requestCount = 0
    private var lastWriteProgress: UInt64 = 0

    init(fd: Int32, remote: String, host: any ConnectionHost, rejection: Rejection?, transport: Transport, responder: any RequestResponder) {
        self.fd = fd
        self.remote = remote
        self.host = host
        self.rejection = rejection
        self.transport = transport
        self.responder = responder
        self.parser = RequestParser(limits: host.configuration.limits)
        self.openedAt = MonotonicClock.nanoseconds()
        self.phaseSince = openedAt
    }

    // MARK: Life cycle

    /// Called once its host watches the socket.
    func start() {
        if let rejection {
            // Over a connection limit: answer 503 (or 429 for one address) at once and close.
            let exchange = Exchange(head: nil, started: MonotonicClock.nanoseconds())
            exchanges.append(exchange)
            stopReadingRequests = true
            respond(rejection.response, to: exchange)
        }
    }

    // MARK: ResponseChannel (the answering methods are below)

    var isCurrent: Bool { host.isCurrent }
    func enqueue(_ work: @escaping @Sendable () -> Void) { host.queue.async(execute: work) }
    var eventScheduler: any SchedulerType { host.eventScheduler }

    /// Shutdown: finish the requests in flight, end event streams (unless `endingStreams` is
    /// false: the server first lets every other request finish), close when idle.
    func drain(endingStreams: Bool = true) {
        if case .lingering = state { close() }
        guard case .open = state else { return }
        draining = true
        stopReadingRequests = true
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
            log(exchange, outcome: reason)
        }
        close()
    }

    private var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    private func close() {
        guard !isClosed else { return }
        state = .closed
        let cancelled = exchanges
        exchanges.removeAll()
        reading = nil
        for exchange in cancelled {
            if exchange.isStream && exchange.responded && !exchange.finished { host.streamClosed() }
            exchange.retire(cancelling: true)
        }
        pending = []
        transport.closeOutput()
        // The host stops watching the socket first: its number is free for reuse once closed.
        host.connectionClosed(self, remote: remote, counted: rejection == nil)
        systemClose(fd)
    }

    /// What the socket became ready for. Readiness is edge-triggered: each handler
    /// goes on until the socket would block, or remembers to look again itself.
    func ready(_ readiness: Readiness) {
        guard !isClosed else { return }
        if readiness.writable && (writeBlocked || readWantsWrite) {
            writable()
            if isClosed { return }
        }
        if readiness.hangup { peerHungUp = true }
        if readiness.inputClosed { peerClosedInput = true }
        if readiness.readable || readiness.hangup {
            if !readPaused {
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
    private func beginClose() {
        guard case .open = state else { return }
        guard pendingOffset >= pending.count else { return }
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

    // MARK: Reading

    private func readable() {
        inReadHandler = true
        defer {
            inReadHandler = false
            pump()
        }
        let buffer = host.readBuffer
        for _ in 0..<4 {
            switch transport.read(fd, into: buffer) {
            case .transferred(let count):
                if case .lingering = state { continue }
                if stopReadingRequests && reading == nil { continue }
                consume(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                if readPaused || isClosed { return }
                // A short read drained the socket. But a reset that came with these bytes raises
                // no further readiness, so after a hangup, and mid-request (where no answer's write
                // would find out), read on until the read fails: otherwise a client that sent half
                // a head and reset held its slot until the header or body timeout (prove's churn part).
                if count < buffer.count && !transport.hasBufferedInput && !peerHungUp && parser.phase != .head && parser.phase != .body {
                    // The same goes for a close of the peer's sending side that came with these
                    // bytes (a request, then `shutdown(SHUT_WR)`): read its end once what they
                    // asked is answered, as a level-triggered poll would report it, or the
                    // connection stays open until the idle timeout.
                    if peerClosedInput { readBufferedInputLater() }
                    return
                }
            case .wantRead:
                return
            case .wantWrite:
                // The socket was full: its next writability resumes the read (`ready`).
                readWantsWrite = true
                return
            case .closed:
                abort(reason: "peer closed")
                return
            case .failed(let reason):
                abort(reason: reason)
                return
            case .notTLS:
                refusePlainHTTP()
                return
            }
        }
        // Four reads and maybe more waiting, which the socket's readiness may not announce
        // again: read it next (TLS: what the session holds, as before).
        var plain = false
        if case .plain = transport { plain = true }
        if plain || transport.hasBufferedInput { readBufferedInputLater() }
    }

    private func readBufferedInputLater() {
        host.queue.async { [self] in
            if case .closed = state { return }
            if !readPaused { readable() }
        }
    }

    /// Plain HTTP on the TLS port: answered in plain, as Go's net/http does, then closed.
    private func refusePlainHTTP() {
        host.logger.debug("plain HTTP on the TLS port", metadata: ["remote": "\(remote)"])
        transport = .plain
        stopReadingRequests = true
        for exchange in exchanges { exchange.retire(cancelling: true) }
        exchanges.removeAll()
        reading = nil
        pending = Self.plainHTTPRefusal
        pendingOffset = 0
        closeWhenWritten = true
        write()
    }

    private static let plainHTTPRefusal = Array((
        "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 48\r\n"
            + "Connection: close\r\n\r\nClient sent an HTTP request to an HTTPS server.\n").utf8)

    private func consume(_ bytes: UnsafeRawBufferPointer) {
        do {
            try parser.parse(bytes) { event in self.handle(event) }
        } catch {
            failRequest(status: error.status, detail: error.reason)
        }
        let newPhase = parser.phase
        if newPhase != phase {
            phaseSince = MonotonicClock.nanoseconds()
            phase = newPhase
        }
        if parser.phase == .closed { stopReadingRequests = true }
        if exchanges.count >= host.configuration.maxPipelinedRequests && !readPaused {
            // Too many unanswered requests: stop reading until the oldest is answered.
            readPaused = true
        }
    }

    private func handle(_ event: RequestParser.Event) {
        guard !stopReadingRequests || reading != nil else { return }
        switch event {
        case .head(let head):
            requestCount += 1
            let exchange = Exchange(head: head, started: MonotonicClock.nanoseconds())
            exchanges.append(exchange)
            reading = exchange
            if head.expectContinue {
                exchange.output += Self.continueLine
            }
        case .body(let bytes):
            if let reading {
                if reading.body.isEmpty { reading.body = bytes } else { reading.body += bytes }
            }
        case .end:
            guard let exchange = reading else { return }
            reading = nil
            phaseSince = MonotonicClock.nanoseconds()
            if let head = exchange.head, !head.keepAlive || draining {
                exchange.closeAfter = true
                stopReadingRequests = true
            }
            dispatch(exchange)
        }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    private func dispatch(_ exchange: Exchange) {
        guard let head = exchange.head else { return }
        exchange.requestID = Self.requestID(from: head.request.headerFields) ?? host.nextRequestID()
        let request = Request(head: head.request, version: head.version, body: exchange.body, id: exchange.requestID, remoteAddress: remote)
        exchange.body = []
        let sink = ResponseSink(channel: self, exchange: exchange)
        exchange.sink = sink
        if head.request.method == .options && head.request.path == "*" {
            respond(Response(status: .ok, headerFields: [.allow: responder.allowedMethods.joined(separator: ", "), .contentLength: "0"]), to: exchange)
            return
        }
        responder.respond(to: request, sink: sink)
    }

    /// `X-Request-ID` as sent, when it is short and printable.
    private static func requestID(from fields: HTTPFields) -> String? {
        guard let value = fields[.xRequestID], !value.isEmpty, value.utf8.count <= 128,
              value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return value
    }

    /// A request the server answers itself (parse error, timeout); it closes the connection.
    private func failRequest(status: HTTPResponse.Status, detail: String) {
        stopReadingRequests = true
        if let reading {
            // The broken request's exchange gets the error; its handler never ran.
            self.reading = nil
            exchanges.removeAll { $0 === reading }
        }
        let exchange = Exchange(head: nil, started: MonotonicClock.nanoseconds())
        exchange.requestID = host.nextRequestID()
        exchanges.append(exchange)
        respond(ProblemDetails.response(status: status, title: status.reasonPhrase, detail: detail, instance: nil), to: exchange)
    }

    // MARK: Responding

    func respond(_ response: Response, to exchange: Exchange) {
        guard !exchange.responded, !isClosed else { return }
        exchange.responded = true
        exchange.finished = true
        exchange.sink?.release()
        if draining || exchange.head == nil { exchange.closeAfter = true }
        let bytes = host.encoder.encode(response, for: exchange)
        if exchange.output.isEmpty { exchange.output = bytes } else { exchange.output += bytes }
        if !inReadHandler { pump() }
    }

    func startStream(_ response: Response, for exchange: Exchange) {
        guard !exchange.responded, !isClosed else { return }
        exchange.responded = true
        exchange.isStream = true
        if exchange.isHeadRequest {
            exchange.finished = true
            exchange.sink?.cancel()
        } else {
            host.streamOpened()
        }
        if draining { exchange.closeAfter = true }
        exchange.output += host.encoder.encodeStreamHead(response, for: exchange)
        exchange.lastOutput = MonotonicClock.nanoseconds()
        if !inReadHandler { pump() }
    }

    /// Queues one event of a stream. When nothing else waits to go out, its
    /// shared bytes are written straight from the event's own buffer: no copy,
    /// and only what the socket does not take is queued.
    func sendEvent(_ event: EncodedEvent, for exchange: Exchange) {
        guard exchange.isStream, !exchange.finished, !isClosed else { return }
        exchange.lastOutput = MonotonicClock.nanoseconds()
        if exchange.chunked, canWriteDirectly(exchange) {
            guard event.chunk.count <= host.settings.maxQueuedEventBytes else {
                dropSlowClient(exchange, queued: event.chunk.count)
                return
            }
            exchange.bytesSent += event.chunk.count
            writeDirectly(event.chunk)
            return
        }
        if exchange.chunked { exchange.output += event.chunk } else { exchange.output += event.block }
        let queued = exchange.output.count + (exchanges.first === exchange ? pending.count - pendingOffset : 0)
        if queued > host.settings.maxQueuedEventBytes {
            dropSlowClient(exchange, queued: queued)
            return
        }
        if !inReadHandler { pump() }
    }

    /// A client that cannot keep up is dropped rather than buffered without bound.
    private func dropSlowClient(_ exchange: Exchange, queued: Int) {
        host.droppedSlowClient()
        host.logger.info("dropped slow event-stream client", metadata: ["remote": "\(remote)", "request_id": "\(exchange.requestID)", "queued_bytes": "\(queued)"])
        abort(reason: "slow event-stream client")
    }

    /// Whether `exchange`'s next bytes may go to the socket at once: it is the
    /// one being written, nothing is queued before them, and the socket is
    /// plain (TLS must retry a write with the same buffer, so it keeps the queue).
    private func canWriteDirectly(_ exchange: Exchange) -> Bool {
        guard case .open = state, case .plain = transport, !inReadHandler else { return false }
        return exchanges.first === exchange && exchange.output.isEmpty && pendingOffset >= pending.count && !closeWhenWritten
    }

    /// Writes `bytes` (shared, never modified) with nothing queued before them;
    /// copies only the part the socket did not take into the queue.
    private func writeDirectly(_ bytes: [UInt8]) {
        let result = bytes.withUnsafeBytes { transport.write(fd, $0) }
        lastWriteProgress = MonotonicClock.nanoseconds()
        switch result {
        case .transferred(let count) where count == bytes.count:
            return
        case .transferred(let count):
            pending = Array(bytes[count...])
        case .wantWrite, .wantRead:
            pending = bytes  // shares the buffer until the queue is changed
        case .closed, .failed, .notTLS:
            abort(reason: "write failed")
            return
        }
        // The socket is full: the rest goes when it is writable again.
        pendingOffset = 0
        writeBlocked = true
    }

    func finishStream(_ exchange: Exchange) {
        guard exchange.isStream, !exchange.finished, !isClosed else { return }
        exchange.finished = true
        exchange.sink?.cancel()
        host.streamClosed()
        ResponseEncoder.appendLastChunk(for: exchange)
        if !inReadHandler { pump() }
    }

    /// Moves the output of the oldest exchanges to the socket, in order.
    private func pump() {
        guard case .open = state else { return }
        var answered = false
        while let first = exchanges.first {
            if !first.output.isEmpty {
                first.bytesSent += first.output.count
                if pending.isEmpty {
                    swap(&pending, &first.output)
                } else {
                    pending += first.output
                    first.output.removeAll(keepingCapacity: false)
                }
            }
            guard first.finished else { break }
            exchanges.removeFirst()
            first.retire(cancelling: false)
            answered = true
            log(first)
            if first.closeAfter {
                stopReadingRequests = true
                for rest in exchanges { rest.retire(cancelling: true) }
                exchanges.removeAll()
                closeWhenWritten = true
                break
            }
        }
        if readPaused && exchanges.count < host.configuration.maxPipelinedRequests {
            // Readiness that came while paused was not acted on, and no new edge may come.
            readPaused = false
            readBufferedInputLater()
        }
        if answered && exchanges.isEmpty && phase == .idle {
            // The idle keep-alive timeout starts when the last response is out.
            phaseSince = MonotonicClock.nanoseconds()
        }
        write()
    }

    private var closeWhenWritten = false

    private func write() {
        guard !isClosed else { return }
        // The write timeout runs from the moment the socket stopped taking bytes.
        if !writeBlocked && !writeWaitsForRead { lastWriteProgress = MonotonicClock.nanoseconds() }
        writeBlocked = false
        writeWaitsForRead = false
        while pendingOffset < pending.count {
            let result = pending.withUnsafeBytes { bytes in
                transport.write(fd, UnsafeRawBufferPointer(rebasing: bytes[pendingOffset...]))
            }
            switch result {
            case .transferred(let count):
                pendingOffset += count
                lastWriteProgress = MonotonicClock.nanoseconds()
                continue
            case .wantWrite:
                writeBlocked = true
            case .wantRead:
                // A TLS write that needs the peer's next record: the read source brings it.
                writeWaitsForRead = true
                if readPaused {
                    readPaused = false
                    readBufferedInputLater()
                }
            case .closed, .failed, .notTLS:
                abort(reason: "write failed")
                return
            }
            return
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 64 * 1024)
        pendingOffset = 0
        if closeWhenWritten { beginClose() }
    }

    /// The socket became writable: a TLS read that had to send goes on, then the pending bytes.
    private func writable() {
        if readWantsWrite {
            readWantsWrite = false
            readable()
        }
        write()
    }

    // MARK: Timers

    private static let heartbeat = EncodedEvent(block: ServerSentEvent.comment("heartbeat"))

    /// Called by the worker's periodic sweep.
    func checkTimers(now: UInt64) {
        let settings = host.settings
        switch state {
        case .closed:
            return
        case .lingering(let since):
            if now &- since >= host.configuration.lingerTimeout.nanoseconds { close() }
            return
        case .open:
            break
        }
        if transport.isHandshaking, let limit = host.configuration.tls?.handshakeTimeout, now &- openedAt >= limit.nanoseconds {
            abort(reason: "TLS handshake timeout")
            return
        }
        if pendingOffset < pending.count && now &- lastWriteProgress >= settings.writeTimeout.nanoseconds {
            abort(reason: "write timeout")
            return
        }
        if !stopReadingRequests && readTimeoutPassed(now: now) {
            // After a stall of the process (SIGSTOP, a paused VM) the sweep can run before the
            // poller's report of bytes that came meanwhile: read them first, so that a timeout
            // counts from when the server could see them (a request that came whole is answered,
            // and the first bytes of a head start its timeout instead of closing it unanswered).
            if !readPaused { readable() }
            if case .open = state, !stopReadingRequests, readTimeoutPassed(now: MonotonicClock.nanoseconds()) {
                switch phase {
                case .head:
                    failRequest(status: .requestTimeout, detail: "The request head was not received in time.")
                    pump()
                case .body:
                    failRequest(status: .requestTimeout, detail: "The request body was not received in time.")
                    pump()
                default:
                    beginClose()
                }
            }
        }
        sendHeartbeats(now: now)
    }

    /// Whether the client has kept the connection waiting longer than its phase allows.
    private func readTimeoutPassed(now: UInt64) -> Bool {
        let settings = host.settings
        let limit: Duration
        switch phase {
        case .head: limit = settings.headerReadTimeout
        case .body: limit = settings.bodyReadTimeout
        case .idle where exchanges.isEmpty: limit = requestCount == 0 ? settings.headerReadTimeout : settings.idleTimeout
        default: return false
        }
        return now &- phaseSince >= limit.nanoseconds
    }

    private func sendHeartbeats(now: UInt64) {
        let settings = host.settings
        let heartbeat = settings.heartbeatInterval.nanoseconds
        for exchange in exchanges where exchange.isStream && !exchange.finished && now &- exchange.lastOutput >= heartbeat {
            sendEvent(Self.heartbeat, for: exchange)
        }
    }

    // MARK: Logging

    /// The access-log line and metrics of one request; `outcome` says why it
    /// ended early (its status is then what was sent, or 0 when nothing was).
    private func log(_ exchange: Exchange, outcome: String? = nil) {
        let duration = MonotonicClock.nanoseconds() &- exchange.started
        if outcome == nil {
            host.requestCompleted(routeID: exchange.routeID, route: exchange.route, method: exchange.methodName, status: exchange.status, durationNanoseconds: duration)
        }
        // Values as they are: a log handler that formats off the request path (the service's
        // batched writer) turns the numbers into text there, not here.
        host.logger.info("request", metadata: [
            "method": .string(exchange.methodName),
            "path": .string(exchange.path),
            "status": .stringConvertible(exchange.status),
            "bytes": .stringConvertible(exchange.bytesSent),
            "duration_ms": .stringConvertible(Double(duration / 1000) / 1000),
            "request_id": .string(exchange.requestID),
            "outcome": .string(outcome ?? "complete"),
        ], source: "HTTP")
    }
}
