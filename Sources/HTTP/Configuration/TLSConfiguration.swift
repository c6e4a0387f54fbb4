/// HTTPS on the server's listener: a certificate chain and its private key
/// (PEM files), as Go's `ListenAndServeTLS(certFile, keyFile)`.
///
/// TLS 1.2 and 1.3 only; TLS 1.2 with ECDHE and AEAD cipher suites; ALPN
/// `http/1.1`; no renegotiation, no compression. `HTTPServer.start()` refuses
/// files that are unreadable, a key that does not match the certificate, and a
/// certificate that is expired or not yet valid. `HTTPServer.apply(_:)` reads
/// the files again (for new connections; open ones keep their session).
public struct TLSConfiguration: Sendable, Hashable {
    /// PEM file with the server certificate first, then any intermediates.
    public var certificateChainFile: String
    /// PEM file with the certificate's private key (unencrypted).
    public var privateKeyFile: String
    /// Time from accepting a connection to the end of its TLS handshake; a
    /// client slower than this is closed. Default 10 s.
    public var handshakeTimeout: Duration
    /// When set, a plain-HTTP listener on this port (same host) answers every
    /// request with 308 to the same target over HTTPS. Default nil (none).
    public var redirectPort: Int?

    /// Creates a configuration; the defaults are documented on each field.
    public init(certificateChainFile: String, privateKeyFile: String, handshakeTimeout: Duration = .seconds(10), redirectPort: Int? = nil) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.handshakeTimeout = handshakeTimeout
        self.redirectPort = redirectPort
    }
}

/// A certificate or key that cannot be used: unreadable, not PEM, a key that
/// does not match, a certificate outside its validity period.
public struct TLSError: Error, CustomStringConvertible, Sendable {
    /// One line saying what is wrong and with which file.
    public let description: String
}
