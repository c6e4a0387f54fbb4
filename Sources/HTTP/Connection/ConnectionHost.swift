import Dispatch
import Logging
import Rx

/// What a connection needs from the server layer that runs it, and nothing more: its
/// serial queue, scratch space shared on that queue, the limits and settings of the moment,
/// its response encoder, and where to report. A worker hosts its connections; the
/// connection layer knows this protocol, not the worker.
protocol ConnectionHost: AnyObject, Sendable {
    /// The serial queue the host's connections are confined to.
    var queue: DispatchQueue { get }
    /// Whether the caller runs on `queue`.
    var isCurrent: Bool { get }
    /// A serial scheduler on `queue`: event streams built for a response deliver there.
    var eventScheduler: SerialDispatchQueueScheduler { get }
    /// Scratch space for `recv`, shared by the host's connections (they run one at a time).
    var readBuffer: UnsafeMutableRawBufferPointer { get }
    /// The limits fixed at start.
    var configuration: ServerConfiguration { get }
    /// The runtime settings of the moment (timeouts, queue bounds, heartbeat).
    var settings: ServerSettings { get }
    /// Encodes responses with the host's `Server`, `Date` and gzip settings.
    var encoder: ResponseEncoder { get }
    var logger: Logger { get }

    /// A request ID unique in this process.
    func nextRequestID() -> String
    /// An event stream began or ended (for the open-streams gauge).
    func streamOpened()
    func streamClosed()
    /// A client that could not keep up with its event stream was dropped.
    func droppedSlowClient()
    /// A request was answered completely: its route, status and duration, for metrics.
    func requestCompleted(routeID: Int, route: String, method: String, status: Int, durationNanoseconds: UInt64)
    /// `connection`'s socket is closed; `counted` when it was counted against the connection limit.
    func connectionClosed(_ connection: Connection, remote: String, counted: Bool)
}
