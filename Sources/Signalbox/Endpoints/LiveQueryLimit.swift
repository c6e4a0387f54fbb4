import Base
import HTTP
import HTTPTypes

/// Bounds the distinct queries streamed by `/search/live` (`live.maxQueries`): each costs a
/// cached entry kept fresh on every write. A stream of a query already streamed is always
/// accepted; a new query beyond the bound gets 503 with Retry-After; existing streams go on.
final class LiveQueryLimit: Sendable {
    private let streams = Locked<[String: Int]>([:])

    /// Registers one stream of the query `key`; `release` must be called once when it ends.
    func register(_ key: String, maxQueries: Int) throws(HTTPError) {
        let accepted = streams.withLock { streams in
            if let count = streams[key] {
                streams[key] = count + 1
                return true
            }
            guard maxQueries <= 0 || streams.count < maxQueries else { return false }
            streams[key] = 1
            return true
        }
        guard accepted else {
            throw HTTPError(
                .serviceUnavailable,
                detail: "Too many distinct live queries are streamed (live.maxQueries \(maxQueries)); retry later or use /search.",
                headerFields: [.retryAfter: "5"])
        }
    }

    func release(_ key: String) {
        streams.withLock { streams in
            guard let count = streams[key] else { return }
            streams[key] = count > 1 ? count - 1 : nil
        }
    }

    /// Distinct queries streamed now.
    var count: Int { streams.withLock { $0.count } }
}
