import CoreMetrics

/// The server's metrics, through swift-metrics (the service bootstraps the
/// backend, e.g. Prometheus):
///
/// - `http_requests_total{route,method,status}` counter
/// - `http_request_duration_seconds{route}` timer
/// - `http_open_connections` gauge
/// - `http_sse_clients` gauge
/// - `http_sse_dropped_clients_total` counter (slow clients dropped)
///
/// Label sets are cached per worker, so the hot path does no factory lookups.
final class HTTPMetrics {
    private struct RequestKey: Hashable {
        let route: Int
        let method: String
        let status: Int
    }

    private var counters: [RequestKey: Counter] = [:]
    private var timers: [Int: Timer] = [:]

    /// `routeID` identifies `route` (cheaper to hash); -1 for unmatched requests.
    func recordRequest(routeID: Int, route: String, method: String, status: Int, durationNanoseconds: UInt64) {
        let key = RequestKey(route: routeID, method: method, status: status)
        let counter: Counter
        if let cached = counters[key] {
            counter = cached
        } else {
            counter = Counter(label: "http_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))])
            counters[key] = counter
        }
        counter.increment()

        let timer: Timer
        if let cached = timers[routeID] {
            timer = cached
        } else {
            timer = Timer(label: "http_request_duration_seconds", dimensions: [("route", route)], preferredDisplayUnit: .seconds)
            timers[routeID] = timer
        }
        timer.recordNanoseconds(Int64(clamping: durationNanoseconds))
    }
}

/// Process-wide gauges and counters shared by every worker (thread-safe by swift-metrics).
struct ServerGauges: Sendable {
    let openConnections = Gauge(label: "http_open_connections")
    let sseClients = Gauge(label: "http_sse_clients")
    let droppedSSEClients = Counter(label: "http_sse_dropped_clients_total")
}
