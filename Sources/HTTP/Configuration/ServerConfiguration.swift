/// What a server is started with. Fixed for the server's life; the part that
/// may change while it runs is `settings` (see `HTTPServer.apply(_:)`).
///
/// Every default is documented in `docs/http.md`.
public struct ServerConfiguration: Sendable {
    /// Address to bind: an IPv4 or IPv6 literal or a host name. `"::"` takes
    /// IPv4 and IPv6 clients. Default `"0.0.0.0"`.
    public var host: String
    /// Port to bind; 0 lets the kernel choose (read it from `HTTPServer.port`). Default 8080.
    public var port: Int
    /// Length of the kernel's queue of connections not yet accepted. Default 512.
    public var backlog: Int32
    /// Serial worker queues that run connections; nil means one per usable
    /// core (honours `taskset`). Default nil.
    public var workerCount: Int?
    /// Value of the `Server` response header. Default `"Signalbox"`.
    public var serverName: String
    /// Request size limits (request line 8 KiB → 414, header section 32 KiB and
    /// 100 fields → 431, body 1 MiB → 413).
    public var limits: ParserLimits
    /// Requests read ahead on one connection while earlier ones are still being
    /// answered (pipelining); beyond it the connection stops reading until the
    /// oldest is answered. Default 16.
    public var maxPipelinedRequests: Int
    /// After a response that closes the connection, how long unread request
    /// bytes are drained so the client sees the response instead of a reset. Default 500 ms.
    public var lingerTimeout: Duration
    /// Kernel send buffer of each connection (`SO_SNDBUF`); nil keeps the
    /// kernel's default (auto-tuned). Smaller values bound the memory a slow
    /// event-stream client can hold in the kernel. Default nil.
    public var socketSendBufferSize: Int?
    /// HTTPS: certificate chain and key files; nil serves plain HTTP. Default nil.
    public var tls: TLSConfiguration?
    /// Settings that `HTTPServer.apply(_:)` can change on a running server.
    public var settings: ServerSettings

    /// Creates a configuration; every argument defaults to the documented value.
    public init(
        host: String = "0.0.0.0",
        port: Int = 8080,
        backlog: Int32 = 512,
        workerCount: Int? = nil,
        serverName: String = "Signalbox",
        limits: ParserLimits = ParserLimits(),
        maxPipelinedRequests: Int = 16,
        lingerTimeout: Duration = .milliseconds(500),
        socketSendBufferSize: Int? = nil,
        tls: TLSConfiguration? = nil,
        settings: ServerSettings = ServerSettings()
    ) {
        self.host = host
        self.port = port
        self.backlog = backlog
        self.workerCount = workerCount
        self.serverName = serverName
        self.limits = limits
        self.maxPipelinedRequests = maxPipelinedRequests
        self.lingerTimeout = lingerTimeout
        self.socketSendBufferSize = socketSendBufferSize
        self.tls = tls
        self.settings = settings
    }
}

/// Timeouts and bounds that a running server can change (`HTTPServer.apply(_:)`),
/// e.g. when the service reloads its configuration on SIGHUP. A change applies
/// to every connection from its next state change; deadlines already running
/// keep their old end.
public struct ServerSettings: Sendable, Hashable {
    /// Time from the first byte of a request (or from accepting the connection)
    /// to the end of its header section; then 408 and close (slowloris). Default 10 s.
    public var headerReadTimeout: Duration
    /// Time to receive a whole request body once its head is read; then 408 and close. Default 30 s.
    public var bodyReadTimeout: Duration
    /// How long a keep-alive connection may wait for its next request. Default 60 s.
    public var idleTimeout: Duration
    /// How long the server waits for a client that stops reading while a
    /// response is pending; then the connection is closed. Default 30 s.
    public var writeTimeout: Duration
    /// Open connections at most; one more is answered 503 and closed. Default 10 000.
    public var maxConnections: Int
    /// Open connections one client address may hold; one more is answered 429 and closed.
    /// 0 (the default) turns the limit off, as behind a reverse proxy every client shares one address.
    public var maxConnectionsPerClient: Int
    /// Smallest body compressed with gzip when the client accepts it; nil turns gzip off. Default 1 KiB.
    public var gzipThreshold: Int?
    /// Interval between comment heartbeats on a quiet event stream. Default 15 s.
    public var heartbeatInterval: Duration
    /// Bytes an event-stream client may have queued and unsent; a client
    /// beyond it is dropped (stream closed, counted). Default 256 KiB.
    public var maxQueuedEventBytes: Int

    /// Creates settings; every argument defaults to the documented value.
    public init(
        headerReadTimeout: Duration = .seconds(10),
        bodyReadTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(60),
        writeTimeout: Duration = .seconds(30),
        maxConnections: Int = 10_000,
        gzipThreshold: Int? = 1024,
        heartbeatInterval: Duration = .seconds(15),
        maxQueuedEventBytes: Int = 256 * 1024,
        maxConnectionsPerClient: Int = 0
    ) {
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.headerReadTimeout = headerReadTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
        self.gzipThreshold = gzipThreshold
        self.heartbeatInterval = heartbeatInterval
        self.maxQueuedEventBytes = maxQueuedEventBytes
    }
}

extension Duration {
    /// Whole nanoseconds, saturating; negative durations count as 0.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
    }
}
