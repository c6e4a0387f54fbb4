import Foundation
import HTTP
import Logging
import Rx
import Search

/// The service: loads the data, opens the store, and serves every endpoint.
///
/// Layers meet here and nowhere else: the HTTP server knows nothing of
/// search, the index nothing of HTTP.
public final class SignalboxService: Sendable {
    /// Live configuration: the current settings, then each reload. Never errors.
    public let configuration: ControlProperty<Settings>
    private let currentSettings: BehaviorRelay<Settings>
    /// The server's lifecycle: started, draining, stopped.
    public var lifecycle: ControlEvent<LifecycleEvent> { server.lifecycle }

    let index: SearchIndex
    let store: DocumentStore
    let feed: ChangeFeed
    let lookups: SearchLookups
    let documents: DocumentService
    private let server: HTTPServer
    private let logger: Logger
    private let ready = Locked(false)
    private let subscriptions = DisposeBag()

    /// Loads the base data set, applies the stored writes and builds the index.
    public init(settings: Settings, logger: Logger = Logger(label: "signalbox")) throws {
        PrometheusExporter.bootstrap()
        self.logger = logger
        let started = ContinuousClock.now
        store = try DocumentStore(path: settings.storePath)
        let changes = try store.changes()
        var byID: [String: Document] = [:]
        let base = try settings.dataPath.map { try DocumentLoader.load(path: $0) } ?? DefaultDataSet.load()
        for document in base { byID[document.id] = document }
        let decoder = JSONDecoder()
        for change in changes {
            byID[change.id] = try change.body.map { try decoder.decode(Document.self, from: $0) }
        }
        index = SearchIndex(documents: Array(byID.values))
        logger.info(
            "data loaded",
            metadata: [
                "documents": "\(index.count)", "stored_changes": "\(changes.count)",
                "source": "\(settings.dataPath ?? "embedded GeoNames cities")",
                "took": "\(ContinuousClock.now - started)",
            ])

        let metrics = ServiceMetrics()
        metrics.documentCount(index.count)
        feed = ChangeFeed(lastSequence: changes.last?.sequence ?? 0, capacity: settings.eventHistory)
        lookups = SearchLookups(index: index, maxEntries: settings.cacheMaxEntries, ttl: settings.cacheTTL, metrics: metrics)
        documents = DocumentService(index: index, store: store, feed: feed, lookups: lookups, metrics: metrics)
        currentSettings = BehaviorRelay(value: settings)
        configuration = ControlProperty(relay: currentSettings)

        let router = Router()
        let currentSettings = self.currentSettings
        OperationsEndpoints(isReady: { [ready] in ready.withLock { $0 } }).register(on: router)
        SearchEndpoints(lookups: lookups).register(on: router)
        DocumentEndpoints(documents: documents) {
            let current = currentSettings.value
            return WriteAuthorization(apiKey: current.apiKey, allowUnauthenticated: current.allowUnauthenticatedWrites)
        }.register(on: router)
        EventEndpoints(feed: feed).register(on: router)
        WebEndpoints().register(on: router)
        server = HTTPServer(configuration: settings.serverConfiguration, router: router, logger: logger)
    }

    /// Binds and starts serving; returns the bound port. An unusable TLS
    /// certificate or key is a ``SettingsError``, as any invalid setting.
    @discardableResult
    public func start() throws -> Int {
        let port: Int
        do {
            port = try server.start()
        } catch let error as TLSError {
            throw SettingsError(description: "invalid setting tls.cert/tls.key: \(error)")
        }
        let (server, lookups, logger) = (self.server, self.lookups, self.logger)
        configuration.changed
            .asSignal()
            .emit(onNext: { settings in
                server.apply(settings.serverSettings)
                lookups.update(maxEntries: settings.cacheMaxEntries, ttl: settings.cacheTTL)
                LogSetup.setLevel(settings.logLevel)
                logger.info("configuration applied")
            })
            .disposed(by: subscriptions)
        ready.withLock { $0 = true }
        return port
    }

    /// Applies reloaded settings: the reloadable ones at once, the others logged as needing a restart.
    public func reload(_ settings: Settings) {
        let current = currentSettings.value
        let changed = SettingsCatalog.changedKeys(from: current, to: settings)
        let reloadable = Set(SettingsCatalog.all.filter(\.reloadable).map(\.key))
        let needRestart = changed.filter { !reloadable.contains($0) }
        if !needRestart.isEmpty {
            logger.warning("these settings take effect on restart", metadata: ["keys": "\(needRestart.joined(separator: ","))"])
        }
        var applied = current
        for descriptor in SettingsCatalog.all where descriptor.reloadable {
            descriptor.copy(settings, &applied)
        }
        configuration.onNext(applied)
    }

    /// The bound port while running.
    public var port: Int? { server.port }

    /// Stops taking requests, lets those in flight finish within the grace period, ends event streams.
    public func shutdown() async {
        ready.withLock { $0 = false }
        await server.shutdown(gracePeriod: .seconds(currentSettings.value.shutdownGracePeriod))
    }
}
