import Foundation
import HTTP
import HTTPTypes
import Rx

/// The one check of every request, at the edge, before any work: who presents what
/// (`Authorization: Bearer`, or `?token=` for an `EventSource`), and whether that may do the
/// route's action on its collection.
///
/// - No credential: public collections' reads; everything readable on a server with no admin
///   key (as before keys existed); writes as `allowUnauthenticatedWrites` says.
/// - An admin key: everything. A stored key: its actions on its collections (403 otherwise).
/// - A tenant token: its parent key's reading actions, on its rules' collections, each read
///   limited to the rule's filter (``Grant``).
///
/// Every secret is compared in constant time; none is logged (the access line drops `token=`).
struct Access: Sendable {
    private let settings: BehaviorRelay<Settings>
    let registry: KeyRegistry
    /// Nil without `keys.masterSecret`: stored keys and tokens are then refused.
    let secrets: KeySecrets?
    private let tokens = TenantTokenCache()
    private let limiter: WriteRateLimiter
    /// Whether a collection is public (`"public": true`, the built-in cities).
    private let isPublic: @Sendable (String) -> Bool
    private let now: @Sendable () -> Date

    init(
        settings: BehaviorRelay<Settings>, registry: KeyRegistry, secrets: KeySecrets?, limiter: WriteRateLimiter = WriteRateLimiter(),
        isPublic: @escaping @Sendable (String) -> Bool, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.settings = settings
        self.registry = registry
        self.secrets = secrets
        self.limiter = limiter
        self.isPublic = isPublic
        self.now = now
    }

    private static let challenge: HTTPFields = [.wwwAuthenticate: #"Bearer realm="signalbox""#]

    /// The grant of `request` for `action` on `collection` (nil: not about one collection); a
    /// 401 problem without a usable credential, 403 when it does not reach, 429 past a key's write rate.
    func grant(_ request: Request, _ action: AccessAction, collection: String?) throws(HTTPError) -> Grant {
        let current = settings.value
        let adminKeys = APIKeys.all(current)
        let grant = try holder(of: request, adminKeys: adminKeys)
        try authorize(grant, action, collection: collection, settings: current, isProtected: !adminKeys.isEmpty)
        if action.isWrite, current.writesRatePerSecond > 0 {
            try limiter.take(grant.rateKey, ratePerSecond: current.writesRatePerSecond, burst: current.writesBurst)
        }
        return grant
    }

    /// Who `request` is, without deciding any action (a 401 only for a credential that is not
    /// valid): for answers that list what the holder may see (`GET /collections`).
    func identify(_ request: Request) throws(HTTPError) -> Grant {
        try holder(of: request, adminKeys: APIKeys.all(settings.value))
    }

    /// The grant of a route of the built-in cities' own API (`/search`, `/documents/{id}`), which
    /// cannot apply a tenant's filter: a token with a filter on `cities` is sent to
    /// `/collections/cities/...`, which can.
    func grantCities(_ request: Request, _ action: AccessAction) throws(HTTPError) -> Grant {
        let grant = try grant(request, action, collection: citiesCollection)
        if case .token(let token, _) = grant.holder, let rule = token.token.rule(for: citiesCollection), rule != nil {
            throw HTTPError(
                .forbidden, detail: "This tenant token filters cities: use /collections/cities/search and /collections/cities/documents/{id}.")
        }
        return grant
    }

    /// ``grantCities(_:_:)``'s verdict for a route that needs no grant (`/search`,
    /// `/documents/{id}`), without its work for the request most of them are: a public read that
    /// presents no credential passes at once. The built-in cities are public (their schema,
    /// `CitiesCollection.schema`, cannot be replaced), and no key is needed to read a public
    /// collection. Reading the settings, the admin keys and the catalog for it was about 4,000
    /// instructions of each uncached `/search` (`Benchmarks/Service/search-instructions.sh`).
    func checkCities(_ request: Request, _ action: AccessAction) throws(HTTPError) {
        if action.isPublicRead, request.headerFields.value(of: .authorization) == nil, request.queryItems(named: "token").isEmpty { return }
        _ = try grantCities(request, action)
    }

    /// A route check (`router.checking`) for `action` on the collection in the path parameter
    /// `parameter` (or on `collection`).
    func requiring(_ action: AccessAction, parameter: String? = nil, collection: String? = nil) -> @Sendable (Request) throws -> Void {
        { request in _ = try grant(request, action, collection: parameter.map { request.parameters[$0] ?? "" } ?? collection) }
    }

    /// Whether `collection` is public.
    func isPublicCollection(_ collection: String) -> Bool { isPublic(collection) }

    // MARK: Who

    private func holder(of request: Request, adminKeys: [String]) throws(HTTPError) -> Grant {
        guard let presented = try Self.credential(of: request) else {
            return Grant(holder: .anonymous(open: adminKeys.isEmpty), rateKind: "", rateID: "")
        }
        let given = Array(presented.utf8)
        var admin: String?
        // Every admin key is compared, with no early exit.
        for key in adminKeys where ConstantTime.equals(given, Array(key.utf8)) && admin == nil { admin = key }
        if let admin { return Grant(holder: .admin, rateKind: "admin:", rateID: admin) }
        if let id = KeySecrets.id(of: presented) {
            guard let secrets, let key = registry.key(id: id), secrets.matches(presented, id: id) else {
                throw Self.unauthorized("The key is not valid (or was deleted).")
            }
            guard !key.isExpired(at: now()) else { throw Self.unauthorized("The key expired at \(Self.format(key.expiresAt)).") }
            return Grant(holder: .key(key), rateKind: "key:", rateID: id)
        }
        if TenantToken.looksLikeJWT(presented) {
            guard let secrets else { throw Self.unauthorized("Tenant tokens need keys.masterSecret on the server.") }
            let registry = self.registry
            let verified: VerifiedToken
            do throws(TenantToken.Invalid) {
                verified = try tokens.token(presented) { () throws(TenantToken.Invalid) in
                    try TenantToken.verify(presented) { id in registry.key(id: id).map { _ in secrets.key(id: id) } }
                }
            } catch {
                throw Self.unauthorized(error.description)
            }
            let time = now()
            guard !verified.token.isExpired(at: time) else { throw Self.unauthorized("The tenant token expired.") }
            guard let parent = registry.key(id: verified.token.apiKeyID) else {
                throw Self.unauthorized("The tenant token's key was deleted.")
            }
            guard !parent.isExpired(at: time) else { throw Self.unauthorized("The tenant token's key expired.") }
            return Grant(holder: .token(verified, parent: parent), rateKind: "key:", rateID: parent.id)
        }
        throw Self.unauthorized("The key is not valid.")
    }

    /// `Authorization: Bearer <credential>`, else `?token=` (an `EventSource` cannot set headers).
    private static func credential(of request: Request) throws(HTTPError) -> String? {
        if let header = request.headerFields.value(of: .authorization) {
            // Compared and trimmed as bytes (space and tab): Foundation's `lowercased()` and
            // `trimmingCharacters(in:)` cost about 22,000 instructions a request.
            let bytes = header.utf8, scheme = "bearer ".utf8
            guard bytes.count > scheme.count,
                zip(bytes, scheme).allSatisfy({ byte, expected in (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == expected })
            else {
                throw unauthorized("Send Authorization: Bearer <key or token>.")
            }
            let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
            var start = bytes.index(bytes.startIndex, offsetBy: scheme.count), end = bytes.endIndex
            while start < end, isBlank(bytes[start]) { start = bytes.index(after: start) }
            while start < end, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
            return String(Substring(bytes[start..<end]))
        }
        return request.queryItems(named: "token").first.flatMap { $0.isEmpty ? nil : $0 }
    }

    // MARK: What

    private func authorize(
        _ grant: Grant, _ action: AccessAction, collection: String?, settings: Settings, isProtected: Bool
    ) throws(HTTPError) {
        let publicRead = action.isPublicRead && (collection.map(isPublic) ?? (action == .events))
        switch grant.holder {
        case .admin:
            return
        case .anonymous:
            if publicRead || (!isProtected && action.isPublicRead) { return }
            if !isProtected {
                if settings.allowUnauthenticatedWrites { return }
                throw HTTPError(
                    .forbidden,
                    detail: "Writes are disabled: start the server with an API key (--api-key, SIGNALBOX_API_KEY, SIGNALBOX_API_KEYS or apiKeysFile).")
            }
            let what = collection.map { "the collection \($0.prefix(64))" } ?? "this"
            throw HTTPError(.unauthorized, detail: "\(what.prefix(1).uppercased() + what.dropFirst()) needs a key: Authorization: Bearer <key>.",
                            headerFields: Self.challenge)
        case .key(let key):
            if publicRead { return }
            guard key.allows(action) else {
                throw HTTPError(.forbidden, detail: "This key may not \(action.rawValue) (its actions: \(key.actions.map(\.rawValue).joined(separator: ", "))).")
            }
            if let collection, !key.allows(collection: collection) {
                throw HTTPError(.forbidden, detail: "This key may not reach the collection \(collection.prefix(64)).")
            }
        case .token(let token, let parent):
            guard action.isPublicRead, parent.allows(action) else {
                throw HTTPError(.forbidden, detail: "A tenant token may not \(action.rawValue) (its key's actions: \(parent.actions.map(\.rawValue).joined(separator: ", "))).")
            }
            if let collection, token.token.rule(for: collection) == nil || !parent.allows(collection: collection) {
                throw HTTPError(.forbidden, detail: "This tenant token has no search rule for \(collection.prefix(64)).")
            }
        }
    }

    private static func unauthorized(_ detail: String) -> HTTPError {
        HTTPError(.unauthorized, detail: detail, headerFields: challenge)
    }

    private static func format(_ date: Date?) -> String {
        date.map { ISO8601DateFormatter().string(from: $0) } ?? "-"
    }
}
