#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds since an arbitrary start, never going back: timeouts and durations on
/// the request path, where `ContinuousClock`'s 128-bit `Duration` costs more than it gives.
/// (Dispatch deadlines still take `DispatchTime`; log lines and settings use `Duration`.)
public enum MonotonicClock {
    @inlinable
    public static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
