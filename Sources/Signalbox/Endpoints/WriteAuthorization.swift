import HTTP
import HTTPTypes

/// Checks `Authorization: Bearer <key>` on writes, in constant time.
struct WriteAuthorization: Sendable {
    let apiKey: String?
    let allowUnauthenticated: Bool

    func check(_ request: Request) throws(HTTPError) {
        guard let apiKey else {
            if allowUnauthenticated { return }
            throw HTTPError(
                .forbidden,
                detail: "Writes are disabled: start the server with an API key (--api-key or SIGNALBOX_API_KEY).")
        }
        let challenge: HTTPFields = [.wwwAuthenticate: #"Bearer realm="signalbox""#]
        guard let header = request.headerFields[.authorization] else {
            throw HTTPError(.unauthorized, detail: "Writes need Authorization: Bearer <key>.", headerFields: challenge)
        }
        let prefix = "Bearer "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix.lowercased(),
            Self.constantTimeEquals(Array(header.utf8.dropFirst(prefix.utf8.count)), Array(apiKey.utf8))
        else {
            throw HTTPError(.unauthorized, detail: "The key is not valid.", headerFields: challenge)
        }
    }

    /// Compares without an early exit, so timing does not reveal how much of the key matched.
    static func constantTimeEquals(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: given.count ^ expected.count)
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}
