import Base

/// Timeouts and heartbeats, checked by the worker's periodic sweep (a request sets no timer).
extension Connection {
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
        if transport.isHandshaking, let limit = host.configuration.tls?.handshakeTimeout, clock.handshakeTimedOut(now: now, limit: limit) {
            abort(reason: "TLS handshake timeout")
            return
        }
        if writer.writeTimedOut(now: now, limit: settings.writeTimeout) {
            abort(reason: "write timeout")
            return
        }
        // A body held back for its handler (`bodyIsFull`) is the server's wait, not the client's.
        if !input.stopsRequests && !input.bodyIsFull && readTimeoutPassed(now: now, settings: settings) {
            // After a stall of the process (SIGSTOP, a paused VM) the sweep can run before the
            // poller's report of bytes that came meanwhile: read them first, so that a timeout
            // counts from when the server could see them (a request that came whole is answered,
            // and the first bytes of a head start its timeout instead of closing it unanswered).
            if !input.holdsReads { readable() }
            if case .open = state, !input.stopsRequests, readTimeoutPassed(now: MonotonicClock.nanoseconds(), settings: settings) {
                switch clock.phase {
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
        sendHeartbeats(now: now, interval: settings.heartbeatInterval)
    }

    private func readTimeoutPassed(now: UInt64, settings: ServerSettings) -> Bool {
        clock.readTimeoutPassed(now: now, settings: settings, awaitingAnswers: !exchanges.isEmpty)
    }

    /// A comment on every event stream that has been quiet for `interval`.
    private func sendHeartbeats(now: UInt64, interval: Duration) {
        let heartbeat = interval.nanoseconds
        for exchange in exchanges where exchange.isStream && !exchange.finished && now &- exchange.lastOutput >= heartbeat {
            sendEvent(Self.heartbeat, for: exchange)
        }
    }
}
