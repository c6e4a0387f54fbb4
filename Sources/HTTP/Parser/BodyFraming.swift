/// How the body of a request is delimited (RFC 9112 §6.3).
enum BodyFraming: Sendable, Hashable {
    /// No body: neither Content-Length nor Transfer-Encoding was sent.
    case none
    /// Exactly this many bytes follow the head (may be 0).
    case contentLength(Int)
    /// A chunked body follows; its total length is not known in advance.
    case chunked
}
