import HTTPTypes

/// `Authorization: Bearer <key>` (RFC 6750) checked against a set of keys, each compared in
/// constant time, so timing reveals neither which key matched nor how much of one. A key is
/// never logged nor echoed in a problem.
public struct BearerAuthorization: Sendable {
    /// Shown in the `WWW-Authenticate` challenge of a 401.
    public let realm: String

    public init(realm: String) {
        self.realm = realm
    }

    /// The key of `keys` that `request` presents; a missing or unknown key is a 401 with a challenge.
    public func key(of request: Request, among keys: [String]) throws(HTTPError) -> String {
        let challenge: HTTPFields = [.wwwAuthenticate: #"Bearer realm="\#(realm)""#]
        guard let header = request.headerFields.value(of: .authorization) else {
            throw HTTPError(.unauthorized, detail: "This needs Authorization: Bearer <key>.", headerFields: challenge)
        }
        let scheme = "bearer "
        guard header.utf8.count > scheme.utf8.count, header.prefix(scheme.count).lowercased() == scheme else {
            throw HTTPError(.unauthorized, detail: "The key is not valid.", headerFields: challenge)
        }
        let given = Array(header.utf8.dropFirst(scheme.utf8.count))
        // Every key is compared, with no early exit.
        var matched: String?
        for key in keys where Self.constantTimeEquals(given, Array(key.utf8)) && matched == nil {
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
