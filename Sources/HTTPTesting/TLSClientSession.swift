import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The TLS versions a test client may offer.
public enum TLSVersion: Sendable, Comparable, CaseIterable {
    case tls1_0, tls1_1, tls1_2, tls1_3

    var openSSLValue: Int32 {
        switch self {
        case .tls1_0: TLS1_VERSION
        case .tls1_1: TLS1_1_VERSION
        case .tls1_2: TLS1_2_VERSION
        case .tls1_3: TLS1_3_VERSION
        }
    }
}

/// A client's TLS session over a connection's socket (OpenSSL 3, the library the server uses).
final class TLSClientSession: @unchecked Sendable {
    // @unchecked: used by one connection, whose socket calls run one at a time on its queue.
    let ssl: OpaquePointer
    /// Socket BIO methods that send with MSG_NOSIGNAL (from the server's shim).
    nonisolated(unsafe) static let socketMethod = sb_bio_method_new()

    /// Attaches a new client session to `descriptor`: verifies the server against the
    /// certificates in `caFile` for `host`, offers ALPN `h2,http/1.1` and the given versions.
    init(descriptor: Int32, caFile: String, host: String, versions: ClosedRange<TLSVersion>?) throws(TestClientError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TestClientError("SSL_CTX_new failed") }
        defer { SSL_CTX_free(context) }  // the session keeps its own reference
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
            throw TestClientError("cannot load \(caFile): \(Self.reason())")
        }
        if let versions {
            // Let the client offer what a server must refuse (TLS 1.0, 1.1).
            if versions.lowerBound < .tls1_2 {
                SSL_CTX_set_security_level(context, 0)
                _ = SSL_CTX_set_cipher_list(context, "DEFAULT:@SECLEVEL=0")
            }
            _ = sb_SSL_CTX_set_min_proto_version(context, versions.lowerBound.openSSLValue)
            _ = sb_SSL_CTX_set_max_proto_version(context, versions.upperBound.openSSLValue)
        }
        guard let ssl = SSL_new(context) else { throw TestClientError("SSL_new failed") }
        guard let method = Self.socketMethod, sb_SSL_set_socket(ssl, descriptor, method) == 1 else {
            SSL_free(ssl)
            throw TestClientError("cannot attach the socket to the TLS session")
        }
        self.ssl = ssl
        _ = sb_SSL_set_tlsext_host_name(ssl, host)
        _ = SSL_set1_host(ssl, host)
        let protocols: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)
        _ = SSL_set_alpn_protos(ssl, protocols, UInt32(protocols.count))
    }

    deinit { SSL_free(ssl) }

    /// The handshake (blocking, within the socket's timeouts).
    func handshake() throws(TestClientError) {
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else { throw TestClientError("TLS handshake failed: \(Self.reason())") }
    }

    func write(_ bytes: UnsafeRawPointer, count: Int) -> Int32 {
        SSL_write(ssl, bytes, Int32(clamping: count))
    }

    /// Bytes, or nil at the end of the stream (close_notify, or the peer gone).
    func read(into chunk: inout [UInt8]) throws(TestClientError) -> [UInt8]? {
        let count = SSL_read(ssl, &chunk, Int32(clamping: chunk.count))
        if count > 0 { return Array(chunk[..<Int(count)]) }
        switch SSL_get_error(ssl, count) {
        case SSL_ERROR_ZERO_RETURN: return nil
        case SSL_ERROR_WANT_READ: throw TestClientError("no answer from the server within the receive timeout (TLS)")
        case SSL_ERROR_SYSCALL where errno == 0 || errno == ECONNRESET: return nil
        default: throw TestClientError("TLS read failed: \(Self.reason())")
        }
    }

    func lastError() -> String { Self.reason() }

    /// The reason of the oldest queued OpenSSL error (and clears the queue).
    static func reason() -> String {
        let code = ERR_peek_error()
        defer { ERR_clear_error() }
        guard code != 0, let text = ERR_reason_error_string(code) else { return "errno \(errno)" }
        return String(cString: text)
    }
}

extension RawConnection {
    /// Performs a TLS handshake on the connection: verifies the server's certificate against
    /// `caFile` for `host` and offers ALPN `h2,http/1.1`. `versions` limits what the client
    /// offers (nil: OpenSSL's defaults), to see what the server refuses. Reads and writes go
    /// through the session from then on.
    public func startTLS(caFile: String, host: String = "localhost", versions: ClosedRange<TLSVersion>? = nil) async throws(TestClientError) {
        let session = try TLSClientSession(descriptor: descriptor, caFile: caFile, host: host, versions: versions)
        tls = session
        try await perform { () throws(TestClientError) in try session.handshake() }
    }

    /// The negotiated version, "TLSv1.3" or "TLSv1.2"; nil without TLS.
    public var tlsVersion: String? { tls.map { String(cString: SSL_get_version($0.ssl)) } }

    /// The negotiated cipher suite's OpenSSL name; nil without TLS.
    public var tlsCipher: String? {
        guard let tls, let cipher = SSL_get_current_cipher(tls.ssl) else { return nil }
        return String(cString: SSL_CIPHER_get_name(cipher))
    }

    /// The protocol the server selected by ALPN ("" for none); nil without TLS.
    public var alpnProtocol: String? {
        guard let tls else { return nil }
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(tls.ssl, &data, &length)
        guard let data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// SHA-256 fingerprint of the server's certificate, colon-separated upper-case hex (as
    /// `openssl x509 -fingerprint -sha256` prints it); nil without TLS.
    public var peerFingerprint: String? {
        guard let tls, let certificate = SSL_get1_peer_certificate(tls.ssl) else { return nil }
        defer { X509_free(certificate) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        X509_digest(certificate, EVP_sha256(), &digest, &length)
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// Whether the server's close_notify arrived.
    public var receivedCloseNotify: Bool {
        guard let tls else { return false }
        return SSL_get_shutdown(tls.ssl) & SSL_RECEIVED_SHUTDOWN != 0
    }
}
