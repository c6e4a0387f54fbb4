import Base
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// The access-log line and the metrics of one request.
enum AccessLog {
    /// Records `exchange` with `host`: its metrics when it was answered completely, and one
    /// `info` line; `outcome` says why it ended early (its status is then what was sent, or 0
    /// when nothing was).
    static func record(_ exchange: Exchange, outcome: String? = nil, host: any ConnectionHost) {
        let duration = MonotonicClock.nanoseconds() &- exchange.started
        if outcome == nil {
            host.requestCompleted(routeID: exchange.routeID, route: exchange.route, method: exchange.methodName, status: exchange.status, durationNanoseconds: duration)
        }
        // Values as they are: a log handler that formats off the request path (the service's
        // batched writer) turns the numbers into text there, not here.
        host.logger.info("request", metadata: [
            "method": .string(exchange.methodName),
            "path": .string(redactingToken(exchange.path)),
            "status": .stringConvertible(exchange.status),
            "bytes": .stringConvertible(exchange.bytesSent),
            "duration_ms": .stringConvertible(Double(duration / 1000) / 1000),
            "request_id": .string(exchange.requestID),
            "outcome": .string(outcome ?? "complete"),
        ], source: "HTTP")
    }

    /// `path` with the value of every `token=` query parameter dropped: a tenant token sent in
    /// the query (an `EventSource` cannot set headers) is a secret and never reaches the log.
    static func redactingToken(_ path: String) -> String {
        // Bytewise, in the string's own bytes, as this runs for every request (callgrind):
        // `firstIndex(of: "?")` by Character cost 2,500 instructions on `/healthz`, `contains("token=")`
        // through Foundation's `range(of:)` 5,600 on every request with a query, and a walk of
        // `Substring.UTF8View` indices about 1,000 on an uncached `/search`.
        let found = path.utf8.withContiguousStorageIfAvailable { bytes in tokenItem(in: UnsafeRawBufferPointer(bytes)) }
        guard found ?? tokenItem(in: Array(path.utf8)), let question = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return path }
        let items = path[path.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item in
            item.hasPrefix("token=") ? "token=REDACTED" : String(item)
        }
        return path[..<question] + "?" + items.joined(separator: "&")
    }

    /// Whether the query of a path in `bytes` (after its first `?`) has an item that starts with `token=`.
    private static func tokenItem(in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, let found = memchr(base, Int32(UInt8(ascii: "?")), bytes.count) else { return false }
        let name: StaticString = "token="
        var index = UnsafeRawPointer(found) - base
        // Every item follows the `?` or an `&`.
        while index + name.utf8CodeUnitCount < bytes.count {
            let mark = bytes[index]
            index += 1
            guard mark == UInt8(ascii: "?") || mark == UInt8(ascii: "&") else { continue }
            if memcmp(base + index, name.utf8Start, name.utf8CodeUnitCount) == 0 { return true }
        }
        return false
    }

    private static func tokenItem(in bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { tokenItem(in: $0) }
    }
}
