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
        // Bytewise, as this runs for every request (callgrind): `firstIndex(of: "?")` by Character
        // cost 2,500 instructions on `/healthz`, and `contains("token=")` went through
        // Foundation's `range(of:)`, 5,600 on every request with a query.
        guard let question = queryStart(path), hasTokenItem(path.utf8[question...]) else { return path }
        let items = path[path.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item in
            item.hasPrefix("token=") ? "token=REDACTED" : String(item)
        }
        return path[..<question] + "?" + items.joined(separator: "&")
    }

    /// Where `path`'s query starts (its `?`), found with memchr in the string's own bytes.
    private static func queryStart(_ path: String) -> String.Index? {
        let utf8 = path.utf8
        let offset = utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard let base = bytes.baseAddress, let found = memchr(base, Int32(UInt8(ascii: "?")), bytes.count) else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
        guard let offset else { return utf8.firstIndex(of: UInt8(ascii: "?")) }
        return offset.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// Whether `query` (from its `?`) has an item that starts with `token=`.
    private static func hasTokenItem(_ query: Substring.UTF8View) -> Bool {
        let name = "token=".utf8
        var index = query.startIndex
        while index != query.endIndex {
            // `query` starts at the `?`: every item follows a `?` or an `&`.
            let mark = query[index]
            index = query.index(after: index)
            if mark == UInt8(ascii: "?") || mark == UInt8(ascii: "&"), query[index...].starts(with: name) { return true }
        }
        return false
    }
}
