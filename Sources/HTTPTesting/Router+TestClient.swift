import HTTP

extension Router {
    /// Runs `body` with a client of this router over `transport`. A live transport starts an
    /// `HTTPServer` for the call and shuts it down after `body` (within
    /// ``TestClient/shutdownGracePeriod``), whether `body` returns or throws. Register the
    /// routes first: the client sees them as they are then.
    public func withTestClient<Value>(
        _ transport: TestTransport = .inProcess, _ body: (TestClient) async throws -> Value
    ) async throws -> Value {
        switch transport.kind {
        case .inProcess:
            return try await body(testClient())
        case .live(let configuration, let logger):
            let server = HTTPServer(configuration: configuration, router: self, logger: logger)
            let port = try server.start()
            let live = LiveClient(port: port, trustedCertificates: configuration.tls?.certificateChainFile, receiveTimeout: RawConnection.defaultReceiveTimeout)
            let client = TestClient(backend: .live(live, server))
            do {
                let value = try await body(client)
                await server.shutdown(gracePeriod: TestClient.shutdownGracePeriod)
                return value
            } catch {
                await server.shutdown(gracePeriod: TestClient.shutdownGracePeriod)
                throw error
            }
        }
    }

    /// An in-process client, for a test that keeps one beyond a single call (it holds no
    /// server, so nothing needs to end).
    public func testClient() -> TestClient {
        TestClient(backend: .inProcess(InProcessClient(routes: table())))
    }
}

extension TestClient {
    /// How long a live server's requests in flight get to finish when the test is over
    /// (1 s times ``TestTime/scale``).
    public static let shutdownGracePeriod: Duration = TestTime.scaled(.seconds(1))
}
