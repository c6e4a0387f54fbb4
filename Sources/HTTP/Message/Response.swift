import HTTPTypes

/// A complete response: status, header fields and body bytes.
///
/// The server adds what every response needs (`Date`, `Server`,
/// `Content-Length`, `X-Request-ID`, `Connection`, gzip) when it writes it;
/// set only what is specific to the resource (`Content-Type`, `ETag`, ...).
public struct Response: Sendable {
    /// Status code and reason.
    public var status: HTTPResponse.Status
    /// Header fields specific to this response.
    public var headerFields: HTTPFields
    /// The body; empty for none. Not sent on HEAD, 204 or 304.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// A response with a UTF-8 body and a content type (`text/plain` by default).
    public init(status: HTTPResponse.Status = .ok, text: String, contentType: String = "text/plain; charset=utf-8") {
        self.init(status: status, headerFields: [.contentType: contentType], body: Array(text.utf8))
    }
}
