import Base
import HTTPTypes

/// Reading and parsing: bytes from the transport into the parser, complete requests to the
/// responder, and the answers the connection makes itself (parse errors, timeouts).
extension Connection {
    func readable() {
        input.inReadHandler = true
        defer {
            input.inReadHandler = false
            pump()
        }
        let buffer = host.readBuffer
        for _ in 0..<4 {
            switch transport.read(fd, into: buffer) {
            case .transferred(let count):
                if case .lingering = state { continue }
                if !acceptsRequestBytes { continue }
                consume(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                if input.holdsReads || isClosed { return }
                // A short read drained the socket. But a reset that came with these bytes raises
                // no further readiness, so after a hangup, and mid-request (where no answer's write
                // would find out), read on until the read fails: otherwise a client that sent half
                // a head and reset held its slot until the header or body timeout (prove's churn part).
                if count < buffer.count && !transport.hasBufferedInput && !input.peerHungUp && parser.phase != .head && parser.phase != .body {
                    // The same goes for a close of the peer's sending side that came with these
                    // bytes (a request, then `shutdown(SHUT_WR)`): read its end once what they
                    // asked is answered, as a level-triggered poll would report it, or the
                    // connection stays open until the idle timeout.
                    if input.peerClosedInput { readBufferedInputLater() }
                    return
                }
            case .wantRead:
                return
            case .wantWrite:
                // The socket was full: its next writability resumes the read (`ready`).
                input.readWantsWrite = true
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

    func readBufferedInputLater() {
        host.queue.async { [self] in
            if case .closed = state { return }
            if !input.holdsReads { readable() }
        }
    }

    /// Plain HTTP on the TLS port: answered in plain, as Go's net/http does, then closed.
    private func refusePlainHTTP() {
        host.logger.debug("plain HTTP on the TLS port", metadata: ["remote": "\(remote)"])
        transport = .plain
        input.stopsRequests = true
        for exchange in exchanges { exchange.retire(cancelling: true) }
        exchanges.removeAll()
        reading = nil
        writer.replace(with: Self.plainHTTPRefusal)
        writer.closeWhenWritten = true
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
        let phase = parser.phase
        if phase != clock.phase { clock.enter(phase, at: MonotonicClock.nanoseconds()) }
        if parser.phase == .closed { input.stopsRequests = true }
        if exchanges.count >= host.configuration.maxPipelinedRequests && !input.isPaused {
            // Too many unanswered requests: stop reading until the oldest is answered.
            input.isPaused = true
        }
    }

    private func handle(_ event: RequestParser.Event) {
        guard acceptsRequestBytes else { return }
        switch event {
        case .head(let head):
            clock.countRequest()
            let exchange = Exchange(head: head, started: MonotonicClock.nanoseconds())
            exchanges.append(exchange)
            reading = exchange
            if head.expectContinue {
                exchange.output += Self.continueLine
            }
            if head.framing != .none, head.framing != .contentLength(0),
                let rule = host.configuration.limits.streamedBody(method: head.request.method.rawValue, path: head.request.path) {
                // Its handler runs now and reads the body as it comes.
                exchange.bodyStream = RequestBodyStream(maxBufferedBytes: rule.maxBufferedBytes)
                if !head.keepAlive || draining { exchange.closeAfter = true }
                dispatch(exchange)
            }
        case .body(let bytes):
            guard let reading else { return }
            if let stream = reading.bodyStream {
                if stream.append(bytes) { holdReads(for: stream) }
            } else if reading.body.isEmpty {
                reading.body = bytes
            } else {
                reading.body += bytes
            }
        case .end:
            guard let exchange = reading else { return }
            reading = nil
            clock.restart(at: MonotonicClock.nanoseconds())
            if let head = exchange.head, !head.keepAlive || draining {
                exchange.closeAfter = true
                input.stopsRequests = true
            }
            if let stream = exchange.bodyStream {
                // Its handler is running already: the body is whole.
                input.bodyIsFull = false
                stream.finish()
                if exchange.closeAfter && exchange.finished && !exchanges.contains(where: { $0 === exchange }) {
                    // Answered before its body's end, by a request that closes the connection.
                    writer.closeWhenWritten = true
                }
                return
            }
            dispatch(exchange)
        }
    }

    /// A streamed body's handler has `RequestBodyStream.maxBufferedBytes` unread: the socket is not
    /// read (TCP slows the client) until it has read half of them. The body timeout does not run meanwhile.
    private func holdReads(for stream: RequestBodyStream) {
        input.bodyIsFull = true
        stream.holdReads { [weak self] in
            guard let self else { return }
            self.host.queue.async {
                guard self.input.bodyIsFull, case .open = self.state else { return }
                self.input.bodyIsFull = false
                self.clock.restart(at: MonotonicClock.nanoseconds())
                self.readBufferedInputLater()
            }
        }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    private func dispatch(_ exchange: Exchange) {
        guard let head = exchange.head else { return }
        exchange.requestID = Self.requestID(from: head.request.headerFields) ?? host.nextRequestID()
        let request = Request(
            head: head.request, version: head.version, body: exchange.body, streamedBody: exchange.bodyStream, id: exchange.requestID,
            remoteAddress: remote)
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
        guard let value = fields.value(of: .xRequestID), !value.isEmpty, value.utf8.count <= 128,
              value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return value
    }

    /// A request the server answers itself (parse error, timeout); it closes the connection.
    func failRequest(status: HTTPResponse.Status, detail: String) {
        input.stopsRequests = true
        if let broken = reading {
            reading = nil
            if let stream = broken.bodyStream {
                // Its handler runs already: its body ends in this error; its answer is not sent.
                input.bodyIsFull = false
                stream.fail(.refused(status: Int(status.code), reason: detail))
                broken.retire(cancelling: true)
            }
            // The broken request's exchange gets the error.
            exchanges.removeAll { $0 === broken }
        }
        let exchange = Exchange(head: nil, started: MonotonicClock.nanoseconds())
        exchange.requestID = host.nextRequestID()
        exchanges.append(exchange)
        respond(ProblemDetails.response(status: status, title: status.reasonPhrase, detail: detail, instance: nil), to: exchange)
    }
}
