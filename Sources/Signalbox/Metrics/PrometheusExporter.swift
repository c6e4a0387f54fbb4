import Metrics
import Prometheus

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
