import HTTP
import HTTPTypes

/// Checks `Authorization: Bearer <key>` on writes against every configured key, each in
/// constant time. The key itself is never logged nor echoed.
struct WriteAuthorization: Sendable {
    let apiKeys: [String]
    let allowUnauthenticated: Bool
    /// The per-key token bucket, and its current rate (0: no limit) and burst.
    var limiter: WriteRateLimiter?
    var ratePerSecond = 0.0
    var burst = 1

    /// Checks the key, then takes a token from its bucket: 401/403, or 429 with Retry-After.
    func admit(_ request: Request) throws(HTTPError) {
        let key = try check(request)
        try limiter?.take(key, ratePerSecond: ratePerSecond, burst: burst)
    }

    /// The key that authorized the request ("" when unauthenticated writes are allowed), for
    /// the per-key write limit.
    @discardableResult
    func check(_ request: Request) throws(HTTPError) -> String {
        guard !apiKeys.isEmpty else {
            if allowUnauthenticated { return "" }
            throw HTTPError(
                .forbidden,
                detail: "Writes are disabled: start the server with an API key (--api-key, SIGNALBOX_API_KEY, SIGNALBOX_API_KEYS or apiKeysFile).")
        }
        let challenge: HTTPFields = [.wwwAuthenticate: #"Bearer realm="signalbox""#]
        guard let header = request.headerFields[.authorization] else {
            throw HTTPError(.unauthorized, detail: "Writes need Authorization: Bearer <key>.", headerFields: challenge)
        }
        let prefix = "Bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix.lowercased() else {
            throw HTTPError(.unauthorized, detail: "The key is not valid.", headerFields: challenge)
        }
        let given = Array(header.utf8.dropFirst(prefix.utf8.count))
        // Every key is compared (no early exit), so timing reveals neither which key matched nor how much.
        var matched: String?
        for key in apiKeys where Self.constantTimeEquals(given, Array(key.utf8)) && matched == nil {
            matched = key
        }
        guard let matched else {
            throw HTTPError(.unauthorized, detail: "The key is not valid.", headerFields: challenge)
        }
        return matched
    }

    /// Compares without an early exit, so timing does not reveal how much of the key matched.
    static func constantTimeEquals(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}
