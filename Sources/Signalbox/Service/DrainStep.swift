/// Where a replica is in its shutdown (SIGTERM), in order (issue 27): a proxy or a
/// Kubernetes endpoint first stops sending it requests, then what is in flight finishes,
/// and last its event streams end, so their clients reconnect to another replica and resume.
enum DrainStep: Sendable, Equatable {
    /// Serving, and ready when caught up.
    case serving
    /// `/readyz` answers 503 while every request is still served, for `shutdown.notReadyDelay`.
    case notReady
    /// No new connections; the requests in flight finish (within `shutdown.gracePeriod`) while event streams go on.
    case finishingRequests
    /// The requests are answered: event streams end with their last chunk.
    case closingStreams
    /// Every connection is closed; the store is released.
    case stopped
}
