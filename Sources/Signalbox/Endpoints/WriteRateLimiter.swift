import Base
import Foundation
import HTTP
import HTTPTypes

/// A token bucket per write key (`writes.ratePerSecond`, `writes.burst`): a key may write
/// `burst` times at once, then `ratePerSecond` times a second; beyond, 429 with Retry-After.
///
/// Buckets are keyed by the key itself (never logged); a bucket that has refilled is dropped,
/// so keys that stopped writing cost nothing.
final class WriteRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    private let buckets = Locked<[String: Bucket]>([:])
    private let now: @Sendable () -> UInt64

    /// `now` gives monotonic nanoseconds (tests pass their own clock).
    init(now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.now = now
    }

    /// Takes one token for `key`; throws 429 when its bucket is empty. A rate of 0 is no limit.
    func take(_ key: String, ratePerSecond: Double, burst: Int) throws(HTTPError) {
        guard ratePerSecond > 0 else { return }
        let time = now()
        let capacity = Double(max(burst, 1))
        let wait: Double? = buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: time)
            let elapsed = Double(time &- bucket.updated) / 1e9
            bucket.tokens = min(capacity, bucket.tokens + elapsed * ratePerSecond)
            bucket.updated = time
            defer {
                if buckets.count > 10_000 { buckets = buckets.filter { $0.value.tokens < capacity } }
            }
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return (1 - bucket.tokens) / ratePerSecond
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
        if let wait {
            throw HTTPError(
                .tooManyRequests,
                detail: "This key writes faster than writes.ratePerSecond (\(ratePerSecond)/s, burst \(burst)); retry later.",
                headerFields: [.retryAfter: "\(max(1, Int(wait.rounded(.up))))"])
        }
    }
}
