import HTTPTypes

/// Why a request could not be parsed, with the status the server should answer.
///
/// After throwing one, the parser is dead: the connection answers `status` (with an
/// RFC 9457 problem body whose `detail` can be `reason`) and closes.
struct RequestParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status to answer: 400, 413, 414, 431, 501 or 505.
    let status: HTTPResponse.Status

    /// A short human-readable explanation, safe to send to the client.
    let reason: String

    /// Creates an error; the parser uses the named factories below.
    init(status: HTTPResponse.Status, reason: String) {
        self.status = status
        self.reason = reason
    }

    var description: String { "\(status.code) \(reason)" }

    static func badRequest(_ reason: String) -> Self { .init(status: .badRequest, reason: reason) }
}
