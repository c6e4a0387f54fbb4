import HTTPTypes

/// An error with the HTTP status to answer, for handlers and failing traits.
///
/// The server answers it as an RFC 9457 `application/problem+json` body with
/// `type`, `title`, `status`, `detail` and `instance` (the request path). Any
/// other error thrown or emitted by a handler becomes a 500 whose body reveals
/// nothing about it.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// The status to answer.
    public var status: HTTPResponse.Status
    /// A short summary of the problem type; defaults to the status's reason phrase.
    public var title: String
    /// An explanation specific to this occurrence, safe to show the client.
    public var detail: String?
    /// A URI identifying the problem type; `about:blank` when nil.
    public var type: String?
    /// Extra header fields for the response (e.g. `Retry-After`, `Allow`).
    public var headerFields: HTTPFields

    /// Creates an error for `status`.
    public init(_ status: HTTPResponse.Status, title: String? = nil, detail: String? = nil, type: String? = nil, headerFields: HTTPFields = [:]) {
        self.status = status
        self.title = title ?? status.reasonPhrase
        self.detail = detail
        self.type = type
        self.headerFields = headerFields
    }

    public var description: String {
        "\(status.code) \(title)" + (detail.map { ": \($0)" } ?? "")
    }
}
