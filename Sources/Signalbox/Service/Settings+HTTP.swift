import HTTP

extension Settings {
    /// What the HTTP server is started with.
    var serverConfiguration: ServerConfiguration {
        ServerConfiguration(
            host: host,
            port: port,
            backlog: Int32(backlog),
            limits: ParserLimits(
                maxRequestLineLength: maxRequestLineBytes, maxHeaderSectionLength: maxHeaderBytes,
                maxHeaderFieldCount: maxHeaderFields, maxBodyLength: maxBodyBytes),
            tls: tlsConfiguration,
            settings: serverSettings)
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
