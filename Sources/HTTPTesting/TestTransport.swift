import HTTP
import Logging

/// How a ``TestClient`` reaches a router: in process, or through a real server on a socket
/// (the roles of HummingbirdTesting's `.router` and `.live`, and of Go's `httptest.NewServer`).
/// The client's requests and streams are the same over both, so one test can run over both
/// (`@Test(arguments: TestTransport.all)`).
public struct TestTransport: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case inProcess
        case live(ServerConfiguration, Logger)
    }

    let kind: Kind

    /// Requests go straight to the routes, gates and checks included: no socket, parser or
    /// server. The response is the route's own (no `Date`, `Content-Length` or gzip), and an
    /// event stream has no heartbeats.
    public static let inProcess = TestTransport(kind: .inProcess)

    /// An `HTTPServer` with the default configuration and two workers, on 127.0.0.1
    /// and a port the kernel picks; requests go over real sockets as HTTP/1.1.
    public static let live = live()

    /// A live server with `configuration` (timeouts, limits, TLS, workers...). Its port is
    /// replaced by 0 (the kernel picks a free one); a host of `0.0.0.0` (the default) by
    /// 127.0.0.1. With TLS, the client trusts the server's own certificate chain file.
    /// `logger` is the server's (by default one that logs errors only). The timeouts left at
    /// their defaults grow by ``TestTime/scale`` (see `ServerSettings.scalingDefaultTimeouts`).
    public static func live(_ configuration: ServerConfiguration = ServerConfiguration(workerCount: 2), logger: Logger? = nil) -> TestTransport {
        var configuration = configuration
        configuration.settings = configuration.settings.scalingDefaultTimeouts()
        configuration.port = 0
        if configuration.host == "0.0.0.0" { configuration.host = "127.0.0.1" }
        var quiet = Logger(label: "signalbox.http-testing")
        quiet.logLevel = .error
        return TestTransport(kind: .live(configuration, logger ?? quiet))
    }

    /// Both transports, to run a test over each.
    public static let all: [TestTransport] = [.inProcess, .live]

    public var description: String {
        switch kind {
        case .inProcess: "in-process"
        case .live: "live"
        }
    }
}
