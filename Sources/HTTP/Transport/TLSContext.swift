import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A server `SSL_CTX` loaded from a certificate chain and key, and checked:
/// readable PEM files, a key that matches, a certificate valid now.
///
/// Immutable once built, so any thread may start sessions from it. A reload
/// builds a new one; `SSL_new` keeps its own reference to the context, so
/// connections opened before the swap keep theirs.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// Subject and validity of the leaf certificate, for logs.
    let certificateSubject: String
    let certificateNotAfter: String

    /// TLS 1.2 suites: ECDHE key exchange with AEAD ciphers only (TLS 1.3's
    /// suites are all AEAD; OpenSSL's default list is kept).
    static let tls12CipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    init(_ configuration: TLSConfiguration) throws(TLSError) {
        let certificateFile = configuration.certificateChainFile
        let keyFile = configuration.privateKeyFile
        try Self.checkReadable(certificateFile, what: "certificate")
        try Self.checkReadable(keyFile, what: "private key")

        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw TLSError(description: "cannot create a TLS context (\(Self.openSSLReason()))")
        }
        var keep = false
        defer { if !keep { SSL_CTX_free(context) } }

        _ = sb_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = sb_SSL_CTX_set_max_proto_version(context, TLS1_3_VERSION)
        _ = SSL_CTX_set_options(context, sb_server_options())
        _ = sb_SSL_CTX_set_mode(context, sb_server_modes())
        // Read whole records and what follows them with one recv where possible.
        _ = sb_SSL_CTX_set_read_ahead(context, 1)
        guard SSL_CTX_set_cipher_list(context, Self.tls12CipherList) == 1 else {
            throw TLSError(description: "cannot set the TLS 1.2 cipher suites (\(Self.openSSLReason()))")
        }
        sb_SSL_CTX_select_http11(context)

        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            throw TLSError(description: "TLS certificate file \(certificateFile) holds no usable PEM certificate (\(Self.openSSLReason()))")
        }
        let key = try Self.readPrivateKey(keyFile)
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1 else {
            ERR_clear_error()
            throw TLSError(description: "TLS private key \(keyFile) does not match the certificate \(certificateFile)")
        }
        guard let leaf = SSL_CTX_get0_certificate(context) else {
            throw TLSError(description: "TLS certificate file \(certificateFile) holds no certificate")
        }
        let notBefore = X509_get0_notBefore(leaf)
        let notAfter = X509_get0_notAfter(leaf)
        // X509_cmp_current_time: -1 when the time is in the past, 1 when in the future, 0 on error.
        guard X509_cmp_current_time(notBefore) < 0 else {
            throw TLSError(description: "TLS certificate \(certificateFile) is not valid before \(Self.format(notBefore))")
        }
        guard X509_cmp_current_time(notAfter) > 0 else {
            throw TLSError(description: "TLS certificate \(certificateFile) expired on \(Self.format(notAfter))")
        }
        certificateSubject = Self.subject(of: leaf)
        certificateNotAfter = Self.format(notAfter)
        self.context = context
        keep = true
    }

    deinit { SSL_CTX_free(context) }

    /// An unencrypted PEM private key. (An encrypted one is refused: the
    /// empty passphrase given keeps OpenSSL from prompting on the terminal.)
    private static func readPrivateKey(_ path: String) throws(TLSError) -> OpaquePointer {
        guard let file = fopen(path, "r") else {
            throw TLSError(description: "cannot read TLS private key file \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        let passphrase = strdup("")
        defer { free(passphrase) }
        guard let key = PEM_read_PrivateKey(file, nil, nil, passphrase) else {
            throw TLSError(description: "TLS private key file \(path) holds no usable unencrypted PEM private key (\(openSSLReason()))")
        }
        return key
    }

    private static func checkReadable(_ path: String, what: String) throws(TLSError) {
        guard let file = fopen(path, "r") else {
            throw TLSError(description: "cannot read TLS \(what) file \(path): \(String(cString: strerror(errno)))")
        }
        fclose(file)
    }

    /// The reason of the oldest queued OpenSSL error (e.g. "no start line"), and clears the queue.
    static func openSSLReason() -> String {
        let code = ERR_peek_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return "no details" }
        if let reason = ERR_reason_error_string(code) { return String(cString: reason) }
        return "OpenSSL error \(code)"
    }

    /// "2026-11-22 04:47:20 UTC"
    static func format(_ time: UnsafePointer<ASN1_TIME>?) -> String {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return "an unreadable date" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }

    private static func subject(of certificate: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard X509_NAME_oneline(X509_get_subject_name(certificate), &buffer, Int32(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
