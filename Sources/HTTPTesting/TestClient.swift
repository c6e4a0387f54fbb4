import HTTP
import HTTPTypes

/// Requests to a router over a ``TestTransport``: in process, or through a live server on a
/// socket, with the same calls for both. Get one with `Router.withTestClient(_:_:)`.
///
/// ```swift
/// try await router.withTestClient(.live) { client in
///     let response = try await client.execute(.get, "/documents/1")
///     let events = try await client.stream("/events")
///     let raw = try client.connect()            // live only: bytes on the wire
/// }
/// ```
public struct TestClient: Sendable {
    enum Backend: Sendable {
        case inProcess(InProcessClient)
        case live(LiveClient, HTTPServer)
    }

    let backend: Backend

    /// The transport's server (live only): its port, lifecycle, settings and shutdown.
    public var server: HTTPServer? {
        if case .live(_, let server) = backend { return server }
        return nil
    }

    /// The live server's port; nil in process.
    public var port: Int? { server?.port }

    /// Answers one request; waits for the answer however long the route takes (a live
    /// connection gives up after its receive timeout). `target` is a path with an optional
    /// query (`/search?q=paris`). Cancelling the task disconnects, as a client that leaves.
    public func execute(
        _ method: HTTPRequest.Method = .get, _ target: String, headerFields: HTTPFields = [:], body: [UInt8] = []
    ) async throws -> TestResponse {
        switch backend {
        case .inProcess(let client): try await client.execute(method, target, headerFields: headerFields, body: body)
        case .live(let client, _): try await client.execute(method, target, headerFields: headerFields, body: body)
        }
    }

    /// Opens an event stream (`GET target`). Returns once the route has subscribed to its
    /// stream (in process: its queue has settled; live: the response head has arrived, which
    /// the server writes after the subscription), so what a test publishes next is delivered.
    public func stream(_ target: String, headerFields: HTTPFields = [:]) async throws -> TestEventStream {
        switch backend {
        case .inProcess(let client): try await client.stream(target, headerFields: headerFields)
        case .live(let client, _): try await client.stream(target, headerFields: headerFields)
        }
    }

    /// A new connection to the live server, to send and read raw bytes (malformed requests,
    /// pipelines, slow or vanishing clients). Plain TCP even when the server serves HTTPS
    /// (``RawConnection/startTLS(caFile:host:versions:)`` does the handshake). Throws in process.
    public func connect(receiveTimeout: Duration = RawConnection.defaultReceiveTimeout) throws(TestClientError) -> RawConnection {
        guard case .live(let client, _) = backend else { throw TestClientError("connect() needs the live transport") }
        return try RawConnection(port: client.port, receiveTimeout: receiveTimeout)
    }
}
