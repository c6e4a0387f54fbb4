import HTTP
import HTTPTypes

/// A complete response. In process it is the route's own (the server would add `Date`,
/// `Content-Length`, gzip); over the live transport it is what the server wrote.
public struct TestResponse: Sendable {
    public let status: HTTPResponse.Status
    public let headerFields: HTTPFields
    public let body: [UInt8]

    init(status: HTTPResponse.Status, headerFields: HTTPFields, body: [UInt8]) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    init(_ response: Response) {
        self.init(status: response.status, headerFields: response.headerFields, body: response.body)
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The value of the field named `name` (any case), several joined by commas; nil when absent.
    public func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headerFields[$0] }
    }

    /// Whether the body is chunked (`Transfer-Encoding: chunked`).
    var isChunked: Bool { headerFields[.transferEncoding]?.lowercased() == "chunked" }

    /// Whether the response is an event stream (`text/event-stream`).
    var isEventStream: Bool { headerFields[.contentType]?.hasPrefix("text/event-stream") == true }
}
