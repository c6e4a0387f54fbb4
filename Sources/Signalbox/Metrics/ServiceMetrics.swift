import Metrics

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

    func lookup(_ outcome: LookupOutcome) {
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

/// How a shared lookup was served: from the cache, computed, or joined to a computation in flight.
enum LookupOutcome: Sendable { case hit, miss, coalesced }
