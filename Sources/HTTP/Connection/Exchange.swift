import HTTPTypes

/// One request on a connection and the response produced for it so far.
///
/// Confined to its connection's worker queue. Responses leave the connection
/// in request order: only the first exchange's `output` is written, and the
/// next one starts when it is `finished` (pipelining).
package final class Exchange {
    /// The parsed head; nil for a response the connection makes itself (400, 408, ...).
    let head: RequestHead?
    let started: UInt64
    var body: [UInt8] = []
    /// The body as it arrives, for a route that streams it: the handler was called at the head.
    var bodyStream: RequestBodyStream?
    var requestID = ""
    /// Route pattern for metrics and logs.
    var route = "unmatched"
    var routeID = -1
    /// Bytes produced and not yet handed to the socket.
    var output: [UInt8] = []
    /// Whether the whole response has been produced.
    var finished = false
    /// Whether a final response head has been produced.
    var responded = false
    /// The connection closes after this response.
    var closeAfter = false
    /// A streamed (event-stream) response: chunked, heartbeats, bounded queue.
    var isStream = false
    var chunked = false
    /// When output was last produced; heartbeats are due `heartbeatInterval` after it.
    var lastOutput: UInt64 = 0
    var status = 0
    var bytesSent = 0
    /// The responder's handle; it points back here, so it is dropped when the
    /// exchange leaves the connection (`retire`) to break the cycle.
    var sink: ResponseSink?

    init(head: RequestHead?, started: UInt64) {
        self.head = head
        self.started = started
    }

    /// An exchange for a request handed over whole, not parsed (an in-process test client):
    /// its head is what the parser would have made of `request` sent as HTTP/1.1.
    package convenience init(request: HTTPRequest, started: UInt64) {
        self.init(head: RequestHead(request: request, version: .http1_1, keepAlive: true, expectContinue: false, framing: .none), started: started)
    }

    /// Leaves the connection: stops the responder's work if asked, and drops the sink.
    func retire(cancelling: Bool) {
        if cancelling { sink?.cancel() }
        sink = nil
    }

    var isHeadRequest: Bool { head?.request.method == .head }
    var methodName: String { head?.request.method.rawValue ?? "-" }
    var path: String { head?.request.path ?? "-" }
}
