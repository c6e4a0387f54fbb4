/// Every setting of the service, with its default.
///
/// Values come, highest priority first, from command-line flags, `SIGNALBOX_…`
/// environment variables, the configuration file (JSON, `Config/signalbox.json`
/// by default) and these defaults. ``SettingsCatalog`` names each one, and
/// says which take effect on a running server when SIGHUP reloads the file.
public struct Settings: Sendable, Equatable {
    // MARK: Fixed at start

    /// Address to listen on.
    public var host = "0.0.0.0"
    /// TCP port to listen on.
    public var port = 8080
    /// A data set to serve instead of the embedded cities (NDJSON or GeoNames cities file).
    public var dataPath: String?
    /// The SQLite file that records every write, or a `postgres://` URL: replicas with the same URL are one cluster.
    public var storePath = "signalbox.sqlite"
    /// Bearer key that writes must present.
    public var apiKey: String?
    /// The secret every stored key's secret is derived from (`POST /keys`, tenant tokens); never logged.
    public var keysMasterSecret: String?
    /// A file holding `keysMasterSecret` (its first line), for secrets kept out of the environment.
    public var keysMasterSecretFile: String?
    /// Development only: accept writes without a key when none is configured.
    public var allowUnauthenticatedWrites = false
    /// Listen backlog.
    public var backlog = 512
    /// Longest request line (414 beyond).
    public var maxRequestLineBytes = 8 * 1024
    /// Largest header section (431 beyond).
    public var maxHeaderBytes = 32 * 1024
    /// Most header fields (431 beyond).
    public var maxHeaderFields = 100
    /// Largest request body (413 beyond).
    public var maxBodyBytes = 1024 * 1024
    /// Change events kept for `Last-Event-ID` resumes.
    public var eventHistory = 1024
    /// Directory of the collections' persisted indexes (a folder of segment files each), so that
    /// a start loads them instead of rebuilding: nil is beside a SQLite store (`STORE.index`), or
    /// `signalbox-index-PORT` in the working directory on PostgreSQL (each replica its own).
    public var indexDirectory: String?
    /// Seconds between saves of the indexes that changed (they are saved at shutdown too, and
    /// after a start that had to build one); 0 saves only then.
    public var indexSaveInterval = 60.0
    /// Largest import body (`POST /collections/{name}/documents`), inflated (413 beyond).
    public var importMaxBytes = 256 << 20
    /// Documents an import commits in one transaction, and applies to the index as one write.
    /// 8,192 by default: one fsync per batch, and a document built into a segment at most 4 times
    /// below 2,097,152 documents (8,192, then merged 4 at a time into 32,768, 131,072 and 524,288)
    /// instead of up to 5 times with 2,000. A power of 4 times 2,048, so the merges of a collection
    /// below 2,097,152 documents never make one segment of all of them (every document decoded
    /// again at once: batches of 20,000 peaked at 2.8 GiB in a 255 MiB import). 32,768 is faster
    /// still (at most 3 builds) but holds two batches of decoded documents in flight, and a
    /// 255 MiB import peaked about 190 MiB higher than with 2,000.
    public var importBatchSize = 8_192
    /// Most collections besides the built-in cities.
    public var collectionsMax = 100
    /// Most documents in one collection.
    public var collectionsMaxDocuments = 10_000_000
    /// Most declared fields in a collection's schema.
    public var collectionsMaxFields = 64
    /// Longest string value of a document's field, in bytes.
    public var collectionsMaxValueBytes = 8_192
    /// Most synonym groups and one-way rules of a collection.
    public var collectionsMaxSynonymGroups = 1_000
    /// Most entries in one synonym group or one-way rule (its source counted).
    public var collectionsMaxSynonymWords = 20
    /// Most stop words of a collection.
    public var collectionsMaxStopWords = 1_000
    /// Largest `limit` of a collection search.
    public var searchMaxLimit = 250
    /// Largest `offset` of a collection search.
    public var searchMaxOffset = 10_000
    /// Most facets one collection search may ask for.
    public var searchMaxFacets = 10
    /// Values counted per string facet (the most frequent).
    public var searchFacetValues = 100
    /// Longest `filter`, in bytes.
    public var searchFilterMaxLength = 4_096
    /// Deepest nesting of a `filter` (parentheses and NOT).
    public var searchFilterMaxDepth = 10
    /// Most search results kept in the shared lookup cache.
    public var cacheMaxEntries = 10_000
    /// PEM certificate chain; with `tlsKeyPath` the listener speaks HTTPS.
    /// The files are read again on SIGHUP (the paths are fixed at start).
    public var tlsCertificatePath: String?
    /// PEM private key of the certificate.
    public var tlsKeyPath: String?
    /// A plain-HTTP port that redirects every request to HTTPS (308).
    public var tlsRedirectPort: Int?
    /// Seconds a client has for its TLS handshake.
    public var tlsHandshakeTimeout = 10.0

    // MARK: Reloadable on SIGHUP

    /// Most open connections; one more is answered 503 and closed.
    public var maxConnections = 10_000
    /// Seconds to receive a whole request head (408 beyond: slowloris).
    public var headerTimeout = 10.0
    /// Seconds between body reads before the request fails with 408.
    public var bodyTimeout = 30.0
    /// Seconds a keep-alive connection may stay idle.
    public var idleTimeout = 60.0
    /// Seconds a write may wait on a client that stopped reading.
    public var writeTimeout = 30.0
    /// Open connections one client address may hold (429 beyond); 0 turns the limit off.
    public var maxConnectionsPerClient = 0
    /// More write keys: a JSON list in the file, separated by commas in `SIGNALBOX_API_KEYS` and `--set`.
    public var apiKeys: [String] = []
    /// A file of write keys, one a line, re-read on SIGHUP (key rotation without a restart).
    public var apiKeysFile: APIKeysFile?
    /// Writes a key may make per second once its burst is spent (429 beyond); 0 turns the limit off.
    public var writesRatePerSecond = 0.0
    /// Writes a key may make at once before `writesRatePerSecond` applies.
    public var writesBurst = 100
    /// Seconds a write waits for this replica to apply it (searchable, sent to `/events`) before it
    /// answers 503 instead of 204: it stays durable and is applied later. A write is never answered
    /// done before a search finds it (issue 25); it waits behind an import's batch, or on PostgreSQL
    /// behind another replica's commit the follower has yet to read. During a schema change, a
    /// write (or an import's batch) whose document only the new schema fits waits as long for the
    /// new index to take over.
    public var writesApplyWait = 30.0
    /// Distinct queries `/search/live` streams at once; a new one beyond gets 503.
    public var liveMaxQueries = 1_000
    /// Seconds between SSE comment heartbeats.
    public var heartbeatInterval = 15.0
    /// Bytes queued for one SSE client before it is dropped as too slow.
    public var sseSendQueueBytes = 256 * 1024
    /// Smallest response body that is gzip-compressed when the client accepts it.
    public var gzipMinBytes = 1024
    /// Seconds a cached search result lives without requests.
    public var cacheTTL = 60.0
    /// Seconds a read with `Signalbox-Min-Seq` (or an `/events` resume) waits for this
    /// replica to apply that change; 503 with `Retry-After` after it.
    public var clusterReadWait = 2.0
    /// Cluster: seconds a PostgreSQL commit may take before the write answers 503.
    public var clusterWriteTimeout = 3.0
    /// Cluster: seconds between reads of the change log when no notification wakes the replica.
    public var clusterPollInterval = 1.0
    /// Cluster: readiness drops when the replica has been behind the cluster's head this many seconds.
    public var clusterMaxLagSeconds = 10.0
    /// Cluster: readiness drops when the replica is this many changes behind the head.
    public var clusterMaxLagChanges = 10_000
    /// Cluster: most changes read from the change log at once.
    public var clusterApplyBatch = 1000
    /// Seconds `/readyz` answers 503 on SIGTERM while every request is still served, before the
    /// server stops accepting: time for a load balancer or a Kubernetes endpoint to stop sending
    /// new requests. 0 by default: a single node has nobody to hand its traffic to.
    public var shutdownNotReadyDelay = 0.0
    /// Seconds that in-flight requests get to finish on SIGTERM; 8 stays
    /// inside Docker's default stop timeout (10 s) before its SIGKILL.
    public var shutdownGracePeriod = 8.0
    /// Log level: trace, debug, info, notice, warning, error, critical.
    public var logLevel = "info"
    /// Log format: text or json.
    public var logFormat = "text"
    /// Log lines queued for the log writer thread; beyond it lines are dropped (and counted in a line of their own).
    public var logQueueLines = 65_536

    /// The defaults.
    public init() {}
}
