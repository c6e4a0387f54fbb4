#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How much longer than usual a test may wait: `SIGNALBOX_TEST_TIME_SCALE` (a number ≥ 1,
/// default 1). A sanitized build runs 2–15× slower, and a busy machine slower again; the
/// limits a test means never to reach (a receive timeout, a grace period, a suite's time
/// limit, how long a write waits to be applied) grow by this factor there, so a slow run
/// still passes and a hung one still fails. Limits a test wants to see fire (a 150 ms write
/// timeout) stay as they are. `scripts/prove-sanitizers tests` sets it.
public enum TestTime {
    /// The factor: `SIGNALBOX_TEST_TIME_SCALE`, or 1 when unset or not a number ≥ 1.
    public static let scale: Double = {
        guard let text = getenv("SIGNALBOX_TEST_TIME_SCALE").map({ String(cString: $0) }),
              let value = Double(text), value.isFinite, value >= 1 else { return 1 }
        return value
    }()

    /// `duration` times ``scale``.
    public static func scaled(_ duration: Duration) -> Duration {
        duration * scale
    }

    /// `seconds` times ``scale`` (for settings given in seconds).
    public static func scaled(seconds: Double) -> Double {
        seconds * scale
    }

    /// Whole minutes times ``scale``, rounded up (for a suite's `.timeLimit(.minutes(_:))`).
    public static func scaled(minutes: Int) -> Int {
        Int((Double(minutes) * scale).rounded(.up))
    }
}
