import HTTP
import HTTPTypes
import Rx

/// Who may write, as the settings say at the moment of the request: a configured key
/// (`Authorization: Bearer`, any of `apiKey`, `apiKeys`, the keys file), then a token from
/// that key's bucket. Composed at the write routes as their check (`router.checking`).
struct WriteAccess: Sendable {
    /// The live settings: keys and limits reloaded on SIGHUP apply to the next write.
    private let settings: BehaviorRelay<Settings>
    private let limiter: WriteRateLimiter
    private let bearer = BearerAuthorization(realm: "signalbox")

    init(settings: BehaviorRelay<Settings>, limiter: WriteRateLimiter = WriteRateLimiter()) {
        self.settings = settings
        self.limiter = limiter
    }

    /// 403 when writes are disabled, 401 without a valid key, 429 with Retry-After beyond the key's rate.
    @Sendable func admit(_ request: Request) throws {
        let current = settings.value
        let key = try self.key(of: request, settings: current)
        try limiter.take(key, ratePerSecond: current.writesRatePerSecond, burst: current.writesBurst)
    }

    /// The key that authorizes `request` ("" when unauthenticated writes are allowed).
    func key(of request: Request, settings: Settings) throws(HTTPError) -> String {
        let keys = APIKeys.all(settings)
        guard !keys.isEmpty else {
            if settings.allowUnauthenticatedWrites { return "" }
            throw HTTPError(
                .forbidden,
                detail: "Writes are disabled: start the server with an API key (--api-key, SIGNALBOX_API_KEY, SIGNALBOX_API_KEYS or apiKeysFile).")
        }
        return try bearer.key(of: request, among: keys)
    }
}
