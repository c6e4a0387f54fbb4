#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `Date` header value (IMF-fixdate), formatted at most once per second.
/// Not thread-safe: each worker owns one.
final class DateCache {
    private var second: time_t = 0
    private var cached: [UInt8] = []

    /// The current date as IMF-fixdate bytes, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    var current: [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            cached = Array(Self.format(now).utf8)
        }
        return cached
    }

    static func format(_ time: time_t) -> String {
        var time = time
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
