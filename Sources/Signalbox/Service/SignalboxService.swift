import Base
import Foundation
import HTTP
import Logging
import Rx
import Search

/// The service: loads the data, opens the store, and serves every endpoint.
///
/// The composition root: it builds each part from the settings and wires them together. The
/// modules stay apart (the HTTP server knows nothing of search, the index nothing of HTTP);
/// inside this module, the endpoints (`Endpoints/`) are the edge where HTTP and search meet,
/// and the parts below them (store, events, lookups, replica, documents) know neither HTTP
/// nor the settings.
public final class SignalboxService: Sendable {
    /// Live configuration: the current settings, then each reload. Never errors.
    public let configuration: ControlProperty<Settings>
    private let currentSettings: BehaviorRelay<Settings>

    let index: SearchIndex
    let store: any DocumentStore
    let feed: EventEndpoints.Feed
    let lookups: SearchLookups
    let documents: DocumentService
    let collections: CollectionService
    let applier: ChangeApplier
    /// The PostgreSQL store's change-log reader; nil on SQLite.
    private let follower: PostgresFollower?
    private let replication: ReplicationMetrics
    private let server: HTTPServer
    /// Every endpoint; tests send requests to it in process (`router.testClient()`).
    let router = Router()
    private let logger: Logger
    private let ready = Locked(false)
    private let subscriptions = DisposeBag()
    /// Where the shutdown is (``DrainStep``), for logs and tests.
    let drainStep = BehaviorRelay(value: DrainStep.serving)
    private let notReadyPeriod = NotReadyPeriod()
    private let shutdownBegun = Locked(false)
    /// The collections' indexes on disk for the next start; nil when off.
    let persistedIndexes: PersistedIndexes?
    /// How many collections started from their persisted index (the others were built from the store).
    let collectionIndexesLoaded: Int
    /// Whether the cities' collection index was loaded (saved from the same base data and store).
    let citiesIndexLoaded: Bool
    /// Whether the start's indexes were built on a thread of its own (`StartIndexes`), not the pool.
    let indexesBuiltOnStartThread: Bool
    /// Whether the saved indexes were loaded on a start's own thread too.
    let indexesLoadedOnStartThread: Bool
    private let catalog: CollectionCatalog
    private let epoch: String
    /// The periodic save of the persisted indexes (`index.saveInterval`).
    private let indexSaves = SerialDisposable()
    /// The save of collections gone quiet after writes (``PersistedIndexes/saveQuiet(_:epoch:marking:)``),
    /// or with no index directory the heap's trim once they are (``QuietCollections``).
    private let quietSaves = SerialDisposable()

    /// Loads the base data set, opens the store (SQLite, or PostgreSQL for a `postgres://`
    /// store), applies its snapshot and builds the index.
    public convenience init(settings: Settings, logger: Logger = Logger(label: "signalbox")) async throws {
        let started = ContinuousClock.now
        let indexDirectory = PersistedIndexes.directory(for: settings)
        // The digest names the base data a saved cities index was built from (and a cluster's).
        let base = try BaseData.load(path: settings.dataPath, withDigest: PostgresURL.isPostgres(settings.storePath) || indexDirectory != nil)
        let store: any DocumentStore
        if PostgresURL.isPostgres(settings.storePath) {
            let url: PostgresURL
            do {
                url = try PostgresURL(settings.storePath)
            } catch {
                throw SettingsError(description: "invalid setting store (SIGNALBOX_STORE): \(error)")
            }
            logger.info("opening the PostgreSQL store", metadata: ["store": "\(url)"])
            store = try await PostgresStore(
                url: url, baseDigest: base.digest, history: settings.eventHistory,
                timeout: .milliseconds(Int(settings.clusterWriteTimeout * 1000)), logger: logger)
        } else {
            store = try SQLiteStore(path: settings.storePath, history: settings.eventHistory)
        }
        // The collections' persisted indexes first: the store then reads only what was written since.
        // Taking their directory (which may wait for its lock) and loading them, like building
        // them, run on threads of their own, off the pool (`StartIndexes`).
        let (persisted, loaded, loadedOnStartThread) = try await StartIndexes.onOwnThread { [digest = base.digest] in
            let persisted = indexDirectory.flatMap { PersistedIndexes(directory: $0, baseDigest: digest, logger: logger) }
            return (persisted, persisted?.loadAll() ?? [:], StartIndexes.isStartThread)
        }
        let snapshot = try await store.snapshot(
            reusing: loaded.mapValues(\.coverage))
        let maxLiveQueries = settings.collectionLimits.maxLiveQueries
        var built = try await StartIndexes.onOwnThread { [documents = base.documents] in
            try StartIndexes.build(base: documents, snapshot: snapshot, persisted: persisted, loaded: loaded, maxLiveQueries: maxLiveQueries)
        }
        built.loadedOnStartThread = loadedOnStartThread
        try self.init(settings: settings, logger: logger, store: store, snapshot: snapshot, persisted: persisted, loaded: loaded, built: built)
        logger.info(
            "data loaded",
            metadata: [
                "documents": "\(index.count)", "stored_changes": "\(snapshot.documents.count)", "head": "\(snapshot.head)",
                "collection_indexes_loaded": "\(snapshot.covered.count)",
                "source": "\(settings.dataPath ?? "embedded GeoNames cities")", "took": "\(ContinuousClock.now - started)",
            ])
    }

    /// `persisted`: where the collections' indexes are saved (nil: not saved); `loaded`: those
    /// loaded from there, used for the collections the snapshot covers (`StoreSnapshot.covered`).
    /// The indexes are built on the caller's thread (tests); a start builds them off the pool.
    convenience init(
        settings: Settings, logger: Logger, base: [Document], store: any DocumentStore, snapshot: StoreSnapshot,
        persisted: PersistedIndexes? = nil, loaded: [String: PersistedIndexes.Loaded] = [:]
    ) throws {
        let built = try StartIndexes.build(
            base: base, snapshot: snapshot, persisted: persisted, loaded: loaded, maxLiveQueries: settings.collectionLimits.maxLiveQueries)
        try self.init(settings: settings, logger: logger, store: store, snapshot: snapshot, persisted: persisted, loaded: loaded, built: built)
    }

    /// `built`: the indexes `StartIndexes` made from `snapshot` and `loaded`.
    init(
        settings: Settings, logger: Logger, store: any DocumentStore, snapshot: StoreSnapshot,
        persisted: PersistedIndexes?, loaded: [String: PersistedIndexes.Loaded], built: StartIndexes
    ) throws {
        PrometheusExporter.bootstrap()
        self.logger = logger
        self.store = store
        let maxLiveQueries = settings.collectionLimits.maxLiveQueries
        indexesBuiltOnStartThread = built.builtOnStartThread
        indexesLoadedOnStartThread = built.loadedOnStartThread
        let (searchIndex, citiesIndex, stored) = (built.search, built.cities, (collections: built.collections, rebuilt: built.rebuilt))
        index = searchIndex
        let catalog = CollectionCatalog()
        catalog.serve(ServedCollection(
            name: citiesCollection, schema: CitiesCollection.schema, index: citiesIndex, isBuiltIn: true, maxLiveQueries: maxLiveQueries))
        for collection in stored.collections {
            catalog.serve(collection)
        }
        TextSettingsDocuments.load(snapshot.documents, into: catalog)
        self.catalog = catalog
        let citiesLoaded = loaded[citiesCollection].map { $0.index === citiesIndex } ?? false
        persistedIndexes = persisted
        collectionIndexesLoaded = snapshot.covered.keys.filter { loaded[$0] != nil }.count
        citiesIndexLoaded = citiesLoaded
        epoch = snapshot.epoch
        let caughtUp = citiesIndex.version > 0 || stored.collections.contains(where: { $0.index.version > 0 })

        let metrics = ServiceMetrics()
        metrics.documentCount(index.count)
        let keys = KeyRegistry(snapshot: snapshot.documents)
        // Keys and synonyms or stop words are never events; documents are decoded by their schema, so a tenant's resume can judge them.
        let history = try snapshot.recentChanges.filter {
            $0.collection != KeyRegistry.collection && $0.collection != TextSettingsDocuments.collection
        }.map { stored in
            let change = try ChangeApplier.Change(stored)
            guard change.isCollectionDocument, let body = stored.body, let collection = catalog.named(stored.collection) else {
                return ChangeApplier.event(change)
            }
            return ChangeApplier.event(ChangeApplier.Change(
                sequence: change.sequence, collection: change.collection, kind: change.kind, id: change.id,
                record: try? collection.decoder.decode(Array(body)), body: body))
        }
        feed = EventEndpoints.Feed(lastSequence: snapshot.head, capacity: settings.eventHistory, history: history)
        lookups = SearchLookups(index: index, maxEntries: settings.cacheMaxEntries, ttl: settings.cacheTTL, metrics: metrics)
        applier = ChangeApplier(
            index: index, lookups: lookups, collections: catalog, feed: feed, metrics: metrics, applied: snapshot.head, keys: keys,
            recentChanges: snapshot.recentChanges, server: snapshot.server)
        if let persisted, !stored.rebuilt.isEmpty || !citiesLoaded || caughtUp {
            // Built from the store, or caught up: saved now, so that the next start loads it.
            logger.info("saving collection indexes built at start", metadata: ["rebuilt": "\(stored.rebuilt.joined(separator: ","))"])
            persisted.saveChanged({ catalog.all }, epoch: snapshot.epoch, marking: applier)
        }
        replication = ReplicationMetrics()
        replication.headSeen(snapshot.head)
        replication.applied(snapshot.head)
        let readWait = RxTimeInterval.milliseconds(Int(settings.clusterReadWait * 1000))
        // A write is answered once searchable here; `writes.applyWait`, not the reads' wait, bounds that.
        let writeWait = RxTimeInterval.milliseconds(Int(settings.writesApplyWait * 1000))
        documents = DocumentService(index: index, store: store, applier: applier, metrics: metrics, applyWait: writeWait)
        collections = CollectionService(
            catalog: catalog, store: store, applier: applier, metrics: metrics, applyWait: writeWait, limits: settings.collectionLimits)
        if let postgres = store as? PostgresStore {
            follower = PostgresFollower(
                store: postgres, applier: applier, metrics: replication,
                pollInterval: .milliseconds(Int(settings.clusterPollInterval * 1000)), batch: settings.clusterApplyBatch,
                history: settings.eventHistory,
                baseDocuments: { [dataPath = settings.dataPath] ids in
                    try BaseData.load(path: dataPath, withDigest: false).documents.filter { ids.contains($0.id) }
                },
                logger: logger, server: snapshot.server)
        } else {
            follower = nil
        }
        currentSettings = BehaviorRelay(value: settings)
        configuration = ControlProperty(relay: currentSettings)

        let currentSettings = self.currentSettings
        let (ready, replication, applier) = (self.ready, self.replication, self.applier)
        var gate = MinimumSequenceGate(applier: applier, metrics: replication, epoch: snapshot.epoch) {
            RxTimeInterval.milliseconds(Int(currentSettings.value.clusterReadWait * 1000))
        }
        gate.othersCommit = store is PostgresStore
        gate.collections = catalog
        router.gate(gate.hold)
        OperationsEndpoints(
            isReady: {
                guard ready.withLock({ $0 }) else { return false }
                let lag = replication.lag
                let settings = currentSettings.value
                return lag.changes <= Int64(settings.clusterMaxLagChanges) && lag.seconds <= settings.clusterMaxLagSeconds
            },
            status: { ReplicaStatus(epoch: snapshot.epoch, applied: applier.applied.value, head: replication.head) }
        ).register(on: router)
        let secrets = try KeySecrets.from(settings)
        let access = Access(
            settings: currentSettings, registry: keys, secrets: secrets, isPublic: { catalog.isPublic($0) })
        SearchEndpoints(lookups: lookups, access: access, maxLiveQueries: { currentSettings.value.liveMaxQueries }).register(on: router)
        DocumentEndpoints(documents: documents, access: access).register(on: router)
        CollectionEndpoints(collections: collections, cities: documents, access: access, parameters: settings.collectionQueryParameters)
            .register(on: router)
        EventEndpoints(feed: feed, applier: applier, epoch: snapshot.epoch, resumeWait: readWait, access: access, collections: catalog)
            .register(on: router)
        KeyEndpoints(
            keys: KeyService(registry: keys, secrets: secrets, store: store, applier: applier, applyWait: writeWait), access: access
        ).register(on: router)
        WebEndpoints().register(on: router)
        server = HTTPServer(configuration: settings.serverConfiguration, router: router, logger: logger)
        applier.applied.asObservable()
            .subscribe(onNext: { replication.applied($0) })
            .disposed(by: subscriptions)
        let drainStep = self.drainStep
        server.lifecycle
            .subscribe(onNext: { event in
                if event == .draining { drainStep.accept(.finishingRequests) }
                if event == .closingStreams { drainStep.accept(.closingStreams) }
            })
            .disposed(by: subscriptions)
    }

    /// Binds and starts serving; returns the bound port. An unusable TLS
    /// certificate or key is a ``SettingsError``, as any invalid setting.
    @discardableResult
    public func start() throws -> Int {
        let port: Int
        follower?.start()
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
                LogSetup.setFormat(settings.logFormat)
                logger.info("configuration applied")
            })
            .disposed(by: subscriptions)
        if let persisted = persistedIndexes, settings.indexSaveInterval > 0 {
            let (catalog, epoch, applier) = (self.catalog, self.epoch, self.applier)
            indexSaves.disposable = Observable<Int>
                .interval(.milliseconds(Int(settings.indexSaveInterval * 1000)), scheduler: ConcurrentDispatchQueueScheduler(qos: .utility))
                .subscribe(onNext: { _ in persisted.saveChanged({ catalog.all }, epoch: epoch, marking: applier) })
            quietSaves.disposable = Observable<Int>
                .interval(.milliseconds(Int(PersistedIndexes.quietCheckInterval * 1000)), scheduler: ConcurrentDispatchQueueScheduler(qos: .utility))
                .subscribe(onNext: { _ in persisted.saveQuiet({ catalog.all }, epoch: epoch, marking: applier) })
        } else {
            // Nothing saved, but what an import's builds and merges freed still goes back to the
            // system once writes pause (on a queue of its own: a trim walks the whole heap).
            let (catalog, quiet) = (self.catalog, QuietCollections())
            let trimming = DispatchQueue(label: "signalbox.heap.trim", qos: .utility)
            quietSaves.disposable = Observable<Int>
                .interval(.milliseconds(Int(PersistedIndexes.quietCheckInterval * 1000)), scheduler: ConcurrentDispatchQueueScheduler(qos: .utility))
                .subscribe(onNext: { _ in trimming.async { if quiet.check(catalog.all).trimHeap { HeapTrim.release() } } })
        }
        ready.withLock { $0 = true }
        return port
    }

    private var settings: Settings { currentSettings.value }

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

    /// Whether this replica serves everything committed when it started (always, on SQLite).
    /// A cluster replica is not ready before that.
    public func catchUp() async throws {
        guard let follower else { return }
        try await follower.catchUpNow()
        let head = replication.head
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = applier.applied.asObservable().filter { $0 >= head }.take(1).subscribe(onCompleted: { done.resume() })
        }
    }

    /// Drains in three steps (`DrainStep`): reports not ready for `shutdown.notReadyDelay`
    /// while still serving, then stops accepting and lets the requests in flight finish within
    /// `shutdown.gracePeriod`, then ends the event streams. A second call (a second signal)
    /// cuts the not-ready wait short.
    public func shutdown() async {
        guard shutdownBegun.withLock({ begun in defer { begun = true }; return !begun }) else {
            return notReadyPeriod.end()
        }
        let settings = currentSettings.value
        ready.withLock { $0 = false }
        drainStep.accept(.notReady)
        if settings.shutdownNotReadyDelay > 0 {
            logger.info("not ready; still serving until the proxies stop sending", metadata: ["seconds": "\(settings.shutdownNotReadyDelay)"])
        }
        await notReadyPeriod.wait(seconds: settings.shutdownNotReadyDelay)
        await server.shutdown(gracePeriod: .seconds(settings.shutdownGracePeriod))
        follower?.stop()
        indexSaves.dispose()
        quietSaves.dispose()
        if let persisted = persistedIndexes {
            // Every change is applied by now: the next start loads these and reads nothing more.
            let catalog = self.catalog
            await persisted.saveChanged({ catalog.all }, epoch: epoch, marking: applier)
            persisted.release()
        }
        await store.close()
        drainStep.accept(.stopped)
    }
}
