import HTTPTypes

/// A parsed request head: the request plus what the connection needs to handle it.
///
/// `request` follows the swift-http-types conventions for HTTP/1: `authority` is the
/// Host field value (or the authority of an absolute-form or authority-form target, which
/// overrides Host), the Host field itself is removed from `headerFields`, `path` is the
/// target as sent (`*` for `OPTIONS *`, nil for `CONNECT`), and `scheme` is set only for
/// absolute-form targets. All other fields, Content-Length and Transfer-Encoding
/// included, stay in `headerFields` in the order received.
struct RequestHead: Sendable, Hashable {
    /// Method, scheme, authority, path and header fields.
    var request: HTTPRequest
    /// The version from the request line.
    var version: HTTPVersion
    /// Whether the connection may carry another request after this one: HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive` (and no `close`).
    /// Always false for CONNECT, which the server does not tunnel.
    var keepAlive: Bool
    /// HTTP/1.1 request with `Expect: 100-continue` that has a body to send: the connection
    /// answers `100 Continue` before it expects body bytes (or a final status instead).
    var expectContinue: Bool
    /// How the body is delimited.
    var framing: BodyFraming

    /// Creates a head; the parser produces these, tests may build their own.
    init(request: HTTPRequest, version: HTTPVersion, keepAlive: Bool, expectContinue: Bool, framing: BodyFraming) {
        self.request = request
        self.version = version
        self.keepAlive = keepAlive
        self.expectContinue = expectContinue
        self.framing = framing
    }
}
