import Metrics
import Prometheus

/// The service's own metrics (the HTTP layer records requests, connections and SSE clients).
///
/// Recorded through swift-metrics; ``PrometheusExporter`` renders them.
final class ServiceMetrics: Sendable {
    private let hits = Counter(label: "signalbox_search_cache_hits_total")
    private let misses = Counter(label: "signalbox_search_cache_misses_total")
    private let coalesced = Counter(label: "signalbox_search_cache_coalesced_total")
    private let computations = Counter(label: "signalbox_search_computations_total")
    private let writes = Counter(label: "signalbox_document_writes_total")
    private let documents = Gauge(label: "signalbox_documents")

    func lookup(_ outcome: SearchLookups.Outcome) {
        switch outcome {
        case .hit: hits.increment()
        case .miss: misses.increment()
        case .coalesced: coalesced.increment()
        }
    }

    func computation() { computations.increment() }
    func write() { writes.increment() }
    func documentCount(_ count: Int) { documents.record(count) }
}

/// The Prometheus registry behind swift-metrics, bootstrapped once per process.
public enum PrometheusExporter {
    private static let shared: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// Makes swift-metrics record into the registry; call before creating metrics.
    public static func bootstrap() { _ = shared }

    /// The text exposition of every metric.
    static func render() -> [UInt8] { shared.emitToBuffer() }
}
