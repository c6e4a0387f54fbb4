import Base

/// The times a connection's timeouts run from: the TLS handshake from accept, the header,
/// body and idle timeouts from the last change of what the parser waits for (or from the
/// last answer, for the idle one).
///
/// A value inside its connection, touched only on the worker's queue; read by the worker's
/// periodic sweep, so a request costs no timer calls. Its methods are given the time rather
/// than reading the clock: a call out while the connection's field is being changed would
/// make Swift check every access to it at run time (see `ResponseWriter`).
struct ConnectionClock {
    let openedAt: UInt64
    /// When `phase` last changed, or the idle wait began.
    private var phaseSince: UInt64
    /// What the parser waited for when last looked at.
    private(set) var phase = RequestParser.Phase.idle
    /// Request heads received so far: before the first, an idle connection has the header timeout.
    private(set) var requestCount = 0

    init(openedAt: UInt64) {
        self.openedAt = openedAt
        self.phaseSince = openedAt
    }

    /// The parser now waits for `parserPhase`, since `now`.
    mutating func enter(_ parserPhase: RequestParser.Phase, at now: UInt64) {
        phaseSince = now
        phase = parserPhase
    }

    /// A request head arrived.
    mutating func countRequest() {
        requestCount += 1
    }

    /// Restarts the current phase's time at `now` (a request ended; the last answer went out).
    mutating func restart(at now: UInt64) {
        phaseSince = now
    }

    /// Whether the client has kept the connection waiting longer than its phase allows;
    /// `awaitingAnswers` when requests are still being answered (the idle timeout waits for them).
    func readTimeoutPassed(now: UInt64, settings: ServerSettings, awaitingAnswers: Bool) -> Bool {
        let limit: Duration
        switch phase {
        case .head: limit = settings.headerReadTimeout
        case .body: limit = settings.bodyReadTimeout
        case .idle where !awaitingAnswers: limit = requestCount == 0 ? settings.headerReadTimeout : settings.idleTimeout
        default: return false
        }
        return now &- phaseSince >= limit.nanoseconds
    }

    /// Whether a TLS handshake still running at `now` has had `limit` since accept.
    func handshakeTimedOut(now: UInt64, limit: Duration) -> Bool {
        now &- openedAt >= limit.nanoseconds
    }
}
