@testable import HTTP
import Logging

/// Starts a server on an ephemeral port of 127.0.0.1 for one test.
func startServer(
    _ router: Router,
    settings: ServerSettings = ServerSettings(),
    limits: ParserLimits = ParserLimits(),
    lingerTimeout: Duration = .milliseconds(500)
) throws -> HTTPServer {
    var logger = Logger(label: "test.http")
    logger.logLevel = .error
    let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, workerCount: 2, limits: limits, lingerTimeout: lingerTimeout, settings: settings)
    let server = HTTPServer(configuration: configuration, router: router, logger: logger)
    try server.start()
    return server
}

extension HTTPServer {
    /// A client connected to this server.
    func client(receiveTimeout: Int = 5) throws -> TestClient {
        try TestClient(port: port!, receiveTimeout: receiveTimeout)
    }
}
