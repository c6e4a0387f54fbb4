import Base

/// Answering (the `ResponseChannel` methods a request's sink calls on the worker's queue)
/// and writing: answers leave in request order through the `ResponseWriter`.
extension Connection {
    func respond(_ response: Response, to exchange: Exchange) {
        guard !exchange.responded, !isClosed else { return }
        exchange.responded = true
        exchange.finished = true
        exchange.sink?.release()
        if exchange === reading, let stream = exchange.bodyStream {
            // Answered before its streamed body's end: the rest is read and dropped (a read held
            // for it resumes through the stream).
            stream.abandon()
        }
        if draining || exchange.head == nil { exchange.closeAfter = true }
        let bytes = host.encoder.encode(response, for: exchange)
        if exchange.output.isEmpty { exchange.output = bytes } else { exchange.output += bytes }
        if !input.inReadHandler { pump() }
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
        if !input.inReadHandler { pump() }
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
            if writer.writeDirectly(event.chunk, through: transport, fd) == .failed { abort(reason: "write failed") }
            return
        }
        if exchange.chunked { exchange.output += event.chunk } else { exchange.output += event.block }
        let queued = exchange.output.count + (exchanges.first === exchange ? writer.queuedCount : 0)
        if queued > host.settings.maxQueuedEventBytes {
            dropSlowClient(exchange, queued: queued)
            return
        }
        if !input.inReadHandler { pump() }
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
        guard case .open = state, case .plain = transport, !input.inReadHandler else { return false }
        return exchanges.first === exchange && exchange.output.isEmpty && writer.isEmpty && !writer.closeWhenWritten
    }

    func finishStream(_ exchange: Exchange) {
        guard exchange.isStream, !exchange.finished, !isClosed else { return }
        exchange.finished = true
        exchange.sink?.cancel()
        host.streamClosed()
        ResponseEncoder.appendLastChunk(for: exchange)
        if !input.inReadHandler { pump() }
    }

    /// Moves the output of the oldest exchanges to the writer, in order, then writes.
    func pump() {
        guard case .open = state else { return }
        var answered = false
        while let first = exchanges.first {
            if !first.output.isEmpty {
                first.bytesSent += first.output.count
                writer.enqueue(&first.output)
            }
            guard first.finished else { break }
            exchanges.removeFirst()
            first.retire(cancelling: false)
            answered = true
            AccessLog.record(first, host: host)
            if first.closeAfter {
                input.stopsRequests = true
                for rest in exchanges { rest.retire(cancelling: true) }
                exchanges.removeAll()
                writer.closeWhenWritten = true
                break
            }
        }
        if input.isPaused && exchanges.count < host.configuration.maxPipelinedRequests {
            // Readiness that came while paused was not acted on, and no new edge may come.
            input.isPaused = false
            readBufferedInputLater()
        }
        if answered && exchanges.isEmpty && clock.phase == .idle {
            // The idle keep-alive timeout starts when the last response is out.
            clock.restart(at: MonotonicClock.nanoseconds())
        }
        write()
    }

    func write() {
        guard !isClosed else { return }
        switch writer.write(through: transport, fd) {
        case .done:
            if writer.closeWhenWritten { beginClose() }
        case .socketFull:
            break
        case .waitsForRead:
            // A TLS write that needs the peer's next record: the read brings it.
            if input.isPaused {
                input.isPaused = false
                readBufferedInputLater()
            }
        case .failed:
            abort(reason: "write failed")
        }
    }

    /// The socket became writable: a TLS read that had to send goes on, then the pending bytes.
    func writable() {
        if input.readWantsWrite {
            input.readWantsWrite = false
            readable()
        }
        write()
    }
}
