import HTTP

extension Settings {
    /// What the HTTP server is started with.
    var serverConfiguration: ServerConfiguration {
        ServerConfiguration(
            host: host,
            port: port,
            backlog: Int32(backlog),
            limits: parserLimits,
            tls: tlsConfiguration,
            settings: serverSettings)
    }

    /// The request limits; an import's body may reach `import.maxBytes` (sent compressed, it is
    /// bounded again once inflated), and is streamed to its handler: parsed as it arrives, never held whole.
    var parserLimits: ParserLimits {
        var limits = ParserLimits(
            maxRequestLineLength: maxRequestLineBytes, maxHeaderSectionLength: maxHeaderBytes,
            maxHeaderFieldCount: maxHeaderFields, maxBodyLength: maxBodyBytes)
        limits.largerBodies = [LargerBody(method: "POST", pathPrefix: "/collections/", pathSuffix: "/documents", maxLength: importMaxBytes, streamed: true)]
        return limits
    }

    /// The bounds of collections and their searches.
    var collectionLimits: CollectionLimits {
        var limits = CollectionLimits()
        limits.maxCollections = collectionsMax
        limits.maxDocuments = collectionsMaxDocuments
        limits.schema.maxFields = collectionsMaxFields
        limits.document.maxStringBytes = collectionsMaxValueBytes
        limits.text.maxGroups = collectionsMaxSynonymGroups
        limits.text.maxWordsPerGroup = collectionsMaxSynonymWords
        limits.text.maxStopWords = collectionsMaxStopWords
        limits.maxLiveQueries = liveMaxQueries == 0 ? Int.max : liveMaxQueries
        limits.importBatch = importBatchSize
        limits.importMaxBytes = importMaxBytes
        return limits
    }

    var collectionQueryParameters: CollectionQueryParameters {
        CollectionQueryParameters(
            maxLimit: searchMaxLimit, maxOffset: searchMaxOffset, filterMaxLength: searchFilterMaxLength, filterMaxDepth: searchFilterMaxDepth,
            maxFacets: searchMaxFacets, facetValues: searchFacetValues)
    }

    /// HTTPS when both a certificate and a key are configured.
    var tlsConfiguration: TLSConfiguration? {
        guard let tlsCertificatePath, let tlsKeyPath else { return nil }
        return TLSConfiguration(
            certificateChainFile: tlsCertificatePath, privateKeyFile: tlsKeyPath,
            handshakeTimeout: .seconds(tlsHandshakeTimeout), redirectPort: tlsRedirectPort)
    }

    /// The part of the HTTP server's settings that SIGHUP can change.
    var serverSettings: ServerSettings {
        ServerSettings(
            headerReadTimeout: .seconds(headerTimeout),
            bodyReadTimeout: .seconds(bodyTimeout),
            idleTimeout: .seconds(idleTimeout),
            writeTimeout: .seconds(writeTimeout),
            maxConnections: maxConnections,
            gzipThreshold: gzipMinBytes,
            heartbeatInterval: .seconds(heartbeatInterval),
            maxQueuedEventBytes: sseSendQueueBytes,
            maxConnectionsPerClient: maxConnectionsPerClient)
    }
}
