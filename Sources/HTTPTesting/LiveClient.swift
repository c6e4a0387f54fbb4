import HTTP
import HTTPTypes

/// The live transport: each request on a new connection to the server's port, as HTTP/1.1
/// bytes, through TLS when the server has it.
struct LiveClient: Sendable {
    let port: Int
    /// The server's certificate chain file when it serves HTTPS: the client trusts it.
    let trustedCertificates: String?
    let receiveTimeout: Duration

    func connect() async throws(TestClientError) -> RawConnection {
        let connection = try RawConnection(port: port, receiveTimeout: receiveTimeout)
        if let trustedCertificates { try await connection.startTLS(caFile: trustedCertificates) }
        return connection
    }

    func execute(_ method: HTTPRequest.Method, _ target: String, headerFields: HTTPFields, body: [UInt8]) async throws -> TestResponse {
        let connection = try await connect()
        // A cancelled request is a client that goes away: the server sees the connection end.
        return try await withTaskCancellationHandler {
            do {
                try await connection.send(Self.encode(method, target, headerFields, body, port: port))
                return try await connection.readResponse(toHEAD: method == .head)
            } catch {
                try Task.checkCancellation()
                throw error
            }
        } onCancel: {
            connection.disconnect()
        }
    }

    func stream(_ target: String, headerFields: HTTPFields) async throws -> TestEventStream {
        let connection = try await connect()
        try await connection.send(Self.encode(.get, target, headerFields, [], port: port))
        let head = try await connection.readHead()
        guard head.isEventStream else {
            // Answered with a problem (or anything but a stream): the whole response, no events.
            let body = try await connection.readBody(of: head, toHEAD: false)
            return TestEventStream(head: TestResponse(status: head.status, headerFields: head.headerFields, body: body), source: .ended)
        }
        // HTTP/1.1 streams are chunked; only an HTTP/1.0 client gets a close-delimited one.
        guard head.isChunked else { throw TestClientError("an HTTP/1.1 event stream without chunked framing") }
        return TestEventStream(head: head, source: .live(connection))
    }

    /// The request as HTTP/1.1 bytes: `Host` unless given, `Content-Length` when there is a
    /// body or the method expects one.
    static func encode(_ method: HTTPRequest.Method, _ target: String, _ fields: HTTPFields, _ body: [UInt8], port: Int) -> [UInt8] {
        var head = "\(method.rawValue) \(target) HTTP/1.1\r\n"
        if fields[.host] == nil { head += "Host: 127.0.0.1:\(port)\r\n" }
        for field in fields { head += "\(field.name.rawName): \(field.value)\r\n" }
        let expectsBody = [.post, .put, .patch].contains(method)
        if fields[.contentLength] == nil && fields[.transferEncoding] == nil && (expectsBody || !body.isEmpty) {
            head += "Content-Length: \(body.count)\r\n"
        }
        return Array((head + "\r\n").utf8) + body
    }
}

extension HTTPField.Name {
    /// `Host`, which swift-http-types keeps as the authority rather than a field name of its own.
    static let host = HTTPField.Name("Host")!
}
