import HTTPTypes

/// Why the listener refuses a connection it accepted: answered at once, then closed.
enum Rejection: Sendable {
    /// Every slot of `http.maxConnections` is taken, or the server is draining: 503.
    case overloaded
    /// This address already holds `http.maxConnectionsPerClient` connections: 429.
    case tooManyFromClient

    var response: Response {
        switch self {
        case .overloaded:
            ProblemDetails.response(
                status: .serviceUnavailable, title: "Service Unavailable", detail: "Too many open connections.", instance: nil,
                headerFields: [.retryAfter: "1"])
        case .tooManyFromClient:
            ProblemDetails.response(
                status: .tooManyRequests, title: "Too Many Requests", detail: "Too many open connections from your address.",
                instance: nil, headerFields: [.retryAfter: "1"])
        }
    }
}
