import Configuration

/// One named setting: its key, what it means, and how to read and check it.
public struct SettingDescriptor: Sendable {
    /// Dotted key, as in the JSON file (`http.maxConnections` is `{"http": {"maxConnections": …}}`).
    public let key: String
    /// One line for `--help` and the README.
    public let summary: String
    /// Whether SIGHUP applies a new value to the running server.
    public let reloadable: Bool
    /// The default, as text.
    public let defaultText: String
    /// What its value must be (a value of another type stops the start).
    let kind: SettingsReader.Kind
    let defaultContent: ConfigContent?
    let read: @Sendable (SettingsReader, inout Settings) throws -> Void
    /// Whether two settings agree on this one.
    let same: @Sendable (Settings, Settings) -> Bool
    /// Copies this one setting from the first to the second.
    let copy: @Sendable (Settings, inout Settings) -> Void

    /// The environment variable that sets it, e.g. `SIGNALBOX_HTTP_MAX_CONNECTIONS`.
    public var environmentVariable: String {
        var name = "SIGNALBOX_"
        var previousWasLower = false
        for character in key {
            if character == "." {
                name += "_"
                previousWasLower = false
            } else if character.isUppercase {
                if previousWasLower { name += "_" }
                name += String(character)
                previousWasLower = false
            } else {
                name += character.uppercased()
                previousWasLower = character.isLowercase || character.isNumber
            }
        }
        return name
    }
}

/// An invalid setting: stops the start (or a reload) with a clear message.
public struct SettingsError: Error, CustomStringConvertible {
    /// What is wrong, naming the key and its environment variable.
    public let description: String
}

/// The table of every setting. Loading, validation, `--help`, the defaults
/// file and the README's reference all come from here.
public enum SettingsCatalog {
    public static var all: [SettingDescriptor] {
        let defaults = Settings()
        return [
            string("host", \.host, defaults, "Address to listen on"),
            int("port", \.port, 0...65535, defaults, "TCP port to listen on"),
            optionalString("data", \.dataPath, "Data set to serve instead of the embedded cities (NDJSON or GeoNames cities file)"),
            string("store", \.storePath, defaults,
                   "SQLite file that records every write, or postgres://user[:password]@host:port/db[?sslmode=…] for a cluster"),
            optionalString("apiKey", \.apiKey, "Admin key (Bearer): every action on every collection, writes included"),
            optionalString("keys.masterSecret", \.keysMasterSecret,
                           "Secret (16 bytes or more) that stored keys and tenant tokens derive from; POST /keys needs it"),
            optionalString("keys.masterSecretFile", \.keysMasterSecretFile, "File whose first line is keys.masterSecret"),
            bool("allowUnauthenticatedWrites", \.allowUnauthenticatedWrites, defaults,
                 "Development only: accept writes without a key when no key is configured"),
            int("http.backlog", \.backlog, 1...65535, defaults, "Listen backlog"),
            int("http.maxRequestLineBytes", \.maxRequestLineBytes, 64...1 << 20, defaults, "Longest request line (414 beyond)"),
            int("http.maxHeaderBytes", \.maxHeaderBytes, 256...1 << 22, defaults, "Largest header section (431 beyond)"),
            int("http.maxHeaderFields", \.maxHeaderFields, 1...10_000, defaults, "Most header fields (431 beyond)"),
            int("http.maxBodyBytes", \.maxBodyBytes, 0...1 << 30, defaults, "Largest request body (413 beyond)"),
            int("events.history", \.eventHistory, 0...1_000_000, defaults, "Change events kept for Last-Event-ID resumes"),
            optionalString("index.directory", \.indexDirectory,
                           "Directory of the collections' persisted indexes, loaded at start instead of rebuilt (default: STORE.index beside "
                           + "a SQLite store; signalbox-index-PORT in the working directory on PostgreSQL; empty: off)",
                           keepingEmpty: true),
            number("index.saveInterval", \.indexSaveInterval, 0...86_400, defaults,
                   "Seconds between saves of the collections' indexes that changed (also saved at shutdown; 0: only then)",
                   reloadable: false),
            int("import.maxBytes", \.importMaxBytes, 1...1 << 40, defaults,
                "Largest import body (POST /collections/{name}/documents), inflated; 413 beyond"),
            int("import.batchSize", \.importBatchSize, 1...1_000_000, defaults, "Documents an import commits in one transaction and applies to the index as one write"),
            int("collections.max", \.collectionsMax, 0...100_000, defaults, "Most collections besides the built-in cities (409 beyond)"),
            int("collections.maxDocuments", \.collectionsMaxDocuments, 1...1 << 31, defaults,
                "Most documents in one collection (409 beyond)"),
            int("collections.maxFields", \.collectionsMaxFields, 1...1_000, defaults, "Most declared fields in a collection's schema (400 beyond)"),
            int("collections.maxValueBytes", \.collectionsMaxValueBytes, 16...1 << 20, defaults,
                "Longest string value of a document's field, in bytes (422 beyond)"),
            int("collections.maxSynonymGroups", \.collectionsMaxSynonymGroups, 0...100_000, defaults,
                "Most synonym groups and one-way rules of a collection (400 beyond)"),
            int("collections.maxSynonymWords", \.collectionsMaxSynonymWords, 2...1_000, defaults,
                "Most entries in one synonym group or one-way rule, its source counted (400 beyond)"),
            int("collections.maxStopWords", \.collectionsMaxStopWords, 0...100_000, defaults, "Most stop words of a collection (400 beyond)"),
            int("search.maxLimit", \.searchMaxLimit, 1...1_000, defaults, "Largest limit of a collection search (400 beyond)"),
            int("search.maxOffset", \.searchMaxOffset, 0...10_000, defaults,  // the engine clamps at CollectionQuery.Limits.maxOffset
                "Largest offset of a collection search (400 beyond)"),
            int("search.maxFacets", \.searchMaxFacets, 0...100, defaults, "Most facets one collection search may ask for (400 beyond)"),
            int("search.facetValues", \.searchFacetValues, 1...1_000, defaults, "Values counted per string facet (the most frequent)"),
            int("search.filterMaxLength", \.searchFilterMaxLength, 16...1 << 20, defaults, "Longest filter, in bytes (400 beyond)"),
            int("search.filterMaxDepth", \.searchFilterMaxDepth, 1...100, defaults,
                "Deepest nesting of a filter, parentheses and NOT (400 beyond)"),
            int("cache.maxEntries", \.cacheMaxEntries, 1...10_000_000, defaults, "Most search results in the shared lookup cache"),
            optionalString("tls.cert", \.tlsCertificatePath,
                           "PEM certificate chain: with tls.key, serves HTTPS (files re-read on SIGHUP)"),
            optionalString("tls.key", \.tlsKeyPath, "PEM private key of tls.cert (unencrypted)"),
            optionalInt("tls.redirectPort", \.tlsRedirectPort, 1...65535, "Plain-HTTP port that answers 308 to HTTPS"),
            seconds("tls.handshakeTimeout", \.tlsHandshakeTimeout, defaults, "Seconds a client has for its TLS handshake",
                    reloadable: false),
            int("http.maxConnections", \.maxConnections, 1...1_000_000, defaults,
                "Most open connections; one more gets 503", reloadable: true),
            int("http.maxConnectionsPerClient", \.maxConnectionsPerClient, 0...1_000_000, defaults,
                "Most open connections from one client address; one more gets 429 (0: no limit, as behind a proxy)",
                reloadable: true),
            keyList("apiKeys", \.apiKeys, "More write keys: a JSON list, or separated by commas (each compared in constant time)",
                    reloadable: true),
            keysFile("apiKeysFile", "File of write keys, one a line, re-read on SIGHUP to add or remove keys"),
            number("writes.ratePerSecond", \.writesRatePerSecond, 0...1_000_000, defaults,
                   "Writes per second one key may make after its burst; more get 429 with Retry-After (0: no limit)"),
            int("writes.burst", \.writesBurst, 1...1_000_000, defaults, "Writes one key may make at once", reloadable: true),
            seconds("writes.applyWait", \.writesApplyWait, defaults,
                    "Seconds a write waits for this replica to apply it (searchable) before it answers 503 instead of 204 (it stays durable); "
                        + "during a schema change, also for the new index when only the new schema fits the document",
                    reloadable: false),
            int("live.maxQueries", \.liveMaxQueries, 0...10_000_000, defaults,
                "Distinct /search/live queries streamed at once; a new one beyond gets 503 with Retry-After (0: no limit)",
                reloadable: true),
            seconds("http.headerTimeout", \.headerTimeout, defaults, "Seconds to receive a request head (408 beyond)"),
            seconds("http.bodyTimeout", \.bodyTimeout, defaults, "Seconds between body reads (408 beyond)"),
            seconds("http.idleTimeout", \.idleTimeout, defaults, "Seconds a keep-alive connection may stay idle"),
            seconds("http.writeTimeout", \.writeTimeout, defaults, "Seconds a write may wait on a client that stopped reading"),
            seconds("sse.heartbeatInterval", \.heartbeatInterval, defaults, "Seconds between SSE heartbeat comments"),
            int("sse.sendQueueBytes", \.sseSendQueueBytes, 1024...1 << 30, defaults,
                "Bytes queued for one SSE client before it is dropped as too slow", reloadable: true),
            int("http.gzipMinBytes", \.gzipMinBytes, 0...1 << 30, defaults,
                "Smallest body that is gzip-compressed when the client accepts it", reloadable: true),
            seconds("cache.ttl", \.cacheTTL, defaults, "Seconds a cached search result lives without requests"),
            seconds("cluster.readWait", \.clusterReadWait, defaults,
                    "Seconds a read with Signalbox-Min-Seq or an /events resume waits for that change (503 beyond)"),
            seconds("cluster.writeTimeout", \.clusterWriteTimeout, defaults,
                    "PostgreSQL: seconds a commit may take before the write answers 503", reloadable: false),
            seconds("cluster.pollInterval", \.clusterPollInterval, defaults,
                    "PostgreSQL: seconds between change-log reads when no notification arrives", reloadable: false),
            seconds("cluster.maxLagSeconds", \.clusterMaxLagSeconds, defaults,
                    "PostgreSQL: /readyz fails once this replica has been behind the head this long"),
            int("cluster.maxLagChanges", \.clusterMaxLagChanges, 1...100_000_000, defaults,
                "PostgreSQL: /readyz fails once this replica is this many changes behind the head", reloadable: true),
            int("cluster.applyBatch", \.clusterApplyBatch, 1...100_000, defaults,
                "PostgreSQL: most changes read from the change log at once"),
            number("shutdown.notReadyDelay", \.shutdownNotReadyDelay, 0...3600, defaults,
                   "Seconds /readyz answers 503 on SIGTERM while requests are still served, before accepting stops "
                       + "(for load balancers and Kubernetes to stop sending; a second SIGTERM skips it)"),
            seconds("shutdown.gracePeriod", \.shutdownGracePeriod, defaults, "Seconds in-flight requests get to finish on SIGTERM"),
            choice("log.level", \.logLevel, ["trace", "debug", "info", "notice", "warning", "error", "critical"], defaults, "Log level"),
            choice("log.format", \.logFormat, ["text", "json"], defaults, "Log format"),
            int("log.queueLines", \.logQueueLines, 1...10_000_000, defaults,
                "Log lines waiting for the log writer; more are dropped and counted"),
        ]
    }

    /// The keys whose values differ between `old` and `new`.
    public static func changedKeys(from old: Settings, to new: Settings) -> [String] {
        all.filter { !$0.same(old, new) }.map(\.key)
    }

    static func setting<Value: Equatable & Sendable>(
        _ key: String, _ path: WritableKeyPath<Settings, Value> & Sendable, _ summary: String, kind: SettingsReader.Kind,
        reloadable: Bool, defaultText: String, defaultContent: ConfigContent?,
        read: @escaping @Sendable (SettingsReader, inout Settings) throws -> Void
    ) -> SettingDescriptor {
        SettingDescriptor(
            key: key, summary: summary, reloadable: reloadable, defaultText: defaultText, kind: kind,
            defaultContent: defaultContent, read: read,
            same: { $0[keyPath: path] == $1[keyPath: path] }, copy: { $1[keyPath: path] = $0[keyPath: path] })
    }

    static func int(
        _ key: String, _ path: WritableKeyPath<Settings, Int> & Sendable, _ range: ClosedRange<Int>,
        _ defaults: Settings, _ summary: String, reloadable: Bool = false
    ) -> SettingDescriptor {
        let value = defaults[keyPath: path]
        return setting(
            key, path, summary, kind: .integer, reloadable: reloadable, defaultText: String(value), defaultContent: .int(value)
        ) { reader, settings in
            let found = try reader.int(key) ?? value
            guard range.contains(found) else {
                throw SettingsError(description: "\(found) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            settings[keyPath: path] = found
        }
    }

    static func seconds(
        _ key: String, _ path: WritableKeyPath<Settings, Double> & Sendable, _ defaults: Settings, _ summary: String,
        reloadable: Bool = true
    ) -> SettingDescriptor {
        let value = defaults[keyPath: path]
        return setting(
            key, path, summary, kind: .number, reloadable: reloadable, defaultText: "\(value)", defaultContent: .double(value)
        ) { reader, settings in
            let found = try reader.double(key) ?? value
            guard found.isFinite, found > 0, found <= 86_400 else {
                throw SettingsError(description: "\(found) is not a number of seconds in (0, 86400]")
            }
            settings[keyPath: path] = found
        }
    }

    static func string(
        _ key: String, _ path: WritableKeyPath<Settings, String> & Sendable, _ defaults: Settings, _ summary: String
    ) -> SettingDescriptor {
        let value = defaults[keyPath: path]
        return setting(
            key, path, summary, kind: .string, reloadable: false, defaultText: value, defaultContent: .string(value)
        ) { reader, settings in
            let found = try reader.string(key) ?? value
            guard !found.isEmpty else { throw SettingsError(description: "must not be empty") }
            settings[keyPath: path] = found
        }
    }

    /// Absent or empty is none.
    /// `keepingEmpty`: an empty value is kept as given (it means something: "off"), not read as unset.
    static func optionalString(
        _ key: String, _ path: WritableKeyPath<Settings, String?> & Sendable, _ summary: String, reloadable: Bool = false,
        keepingEmpty: Bool = false
    ) -> SettingDescriptor {
        setting(key, path, summary, kind: .string, reloadable: reloadable, defaultText: "(none)", defaultContent: nil) {
            reader, settings in
            let found = try reader.string(key)
            settings[keyPath: path] = (found?.isEmpty ?? true) && !(keepingEmpty && found != nil) ? nil : found
        }
    }

    /// Write keys: each checked as a key is (printable ASCII, no whitespace); absent is none.
    static func keyList(
        _ key: String, _ path: WritableKeyPath<Settings, [String]> & Sendable, _ summary: String, reloadable: Bool
    ) -> SettingDescriptor {
        setting(key, path, summary, kind: .stringList, reloadable: reloadable, defaultText: "(none)", defaultContent: nil) {
            reader, settings in
            var keys: [String] = []
            for item in try reader.stringList(key) ?? [] { keys += try APIKeys.parse(item, source: key) }
            settings[keyPath: path] = keys
        }
    }

    /// A number that may be 0 (unlike ``seconds(_:_:_:_:reloadable:)``).
    static func number(
        _ key: String, _ path: WritableKeyPath<Settings, Double> & Sendable, _ range: ClosedRange<Double>,
        _ defaults: Settings, _ summary: String, reloadable: Bool = true
    ) -> SettingDescriptor {
        let value = defaults[keyPath: path]
        return setting(
            key, path, summary, kind: .number, reloadable: reloadable, defaultText: "\(value)", defaultContent: .double(value)
        ) { reader, settings in
            let found = try reader.double(key) ?? value
            guard found.isFinite, range.contains(found) else {
                throw SettingsError(description: "\(found) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            settings[keyPath: path] = found
        }
    }

    /// The keys file: its path, read at each load (start and SIGHUP).
    static func keysFile(_ key: String, _ summary: String) -> SettingDescriptor {
        setting(key, \.apiKeysFile, summary, kind: .string, reloadable: true, defaultText: "(none)", defaultContent: nil) {
            reader, settings in
            guard let path = try reader.string(key), !path.isEmpty else {
                settings.apiKeysFile = nil
                return
            }
            settings.apiKeysFile = try APIKeysFile(path: path)
        }
    }

    static func optionalInt(
        _ key: String, _ path: WritableKeyPath<Settings, Int?> & Sendable, _ range: ClosedRange<Int>, _ summary: String
    ) -> SettingDescriptor {
        setting(key, path, summary, kind: .integer, reloadable: false, defaultText: "(none)", defaultContent: nil) {
            reader, settings in
            guard let found = try reader.int(key) else {
                settings[keyPath: path] = nil
                return
            }
            guard range.contains(found) else {
                throw SettingsError(description: "\(found) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            settings[keyPath: path] = found
        }
    }

    /// Rules between settings, checked after each one is valid on its own.
    static func checkCombination(_ settings: Settings) throws {
        let cert = "tls.cert (SIGNALBOX_TLS_CERT)", key = "tls.key (SIGNALBOX_TLS_KEY)"
        switch (settings.tlsCertificatePath, settings.tlsKeyPath) {
        case (nil, .some): throw SettingsError(description: "\(key) is set without \(cert): HTTPS needs both")
        case (.some, nil): throw SettingsError(description: "\(cert) is set without \(key): HTTPS needs both")
        default: break
        }
        if let redirect = settings.tlsRedirectPort {
            guard settings.tlsCertificatePath != nil else {
                throw SettingsError(description: "tls.redirectPort (SIGNALBOX_TLS_REDIRECT_PORT) needs HTTPS (tls.cert and tls.key)")
            }
            guard redirect != settings.port else {
                throw SettingsError(description: "tls.redirectPort (SIGNALBOX_TLS_REDIRECT_PORT) must differ from port (\(settings.port))")
            }
        }
    }

    static func bool(
        _ key: String, _ path: WritableKeyPath<Settings, Bool> & Sendable, _ defaults: Settings, _ summary: String
    ) -> SettingDescriptor {
        let value = defaults[keyPath: path]
        return setting(
            key, path, summary, kind: .boolean, reloadable: false, defaultText: String(value), defaultContent: .bool(value)
        ) { reader, settings in
            settings[keyPath: path] = try reader.bool(key) ?? value
        }
    }

    static func choice(
        _ key: String, _ path: WritableKeyPath<Settings, String> & Sendable, _ allowed: [String],
        _ defaults: Settings, _ summary: String
    ) -> SettingDescriptor {
        let value = defaults[keyPath: path]
        return setting(
            key, path, "\(summary): \(allowed.joined(separator: ", "))", kind: .string, reloadable: true, defaultText: value,
            defaultContent: .string(value)
        ) { reader, settings in
            let found = (try reader.string(key) ?? value).lowercased()
            guard allowed.contains(found) else {
                throw SettingsError(description: "\"\(found)\" is not one of \(allowed.joined(separator: ", "))")
            }
            settings[keyPath: path] = found
        }
    }
}
