import COpenSSL
import Foundation

/// Certificates made at test time with the `openssl` command, in a temporary
/// folder of their own (tests that replace files do not disturb others).
final class TestPKI {
    let directory: String

    struct Pair {
        let certificate: String
        let key: String
    }

    init() throws {
        directory = NSTemporaryDirectory() + "signalbox-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func path(_ name: String) -> String { directory + "/" + name }

    /// A self-signed P-256 certificate for localhost and 127.0.0.1, valid one day.
    func issue(_ name: String) throws -> Pair {
        let pair = Pair(certificate: path(name + ".crt"), key: path(name + ".key"))
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", pair.key, "-out", pair.certificate,
        ])
        return pair
    }

    /// A certificate for `key` that expired yesterday (`-days -1`: not after is before now).
    func expired(_ name: String, key: String) throws -> String {
        let request = path(name + ".csr")
        let certificate = path(name + ".crt")
        try Self.openssl(["req", "-new", "-key", key, "-subj", "/CN=localhost", "-out", request])
        try Self.openssl(["x509", "-req", "-in", request, "-signkey", key, "-days", "-1", "-out", certificate])
        return certificate
    }

    /// Replaces `destination` with a copy of `source` (what an operator does before SIGHUP).
    func copy(_ source: String, to destination: String) throws {
        _ = try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    func write(_ text: String, to name: String) throws -> String {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    /// The SHA-256 fingerprint of the certificate in a PEM file, as `openssl x509 -fingerprint` prints it.
    func fingerprint(_ certificate: String) throws -> String {
        try Self.openssl(["x509", "-in", certificate, "-noout", "-fingerprint", "-sha256"])
            .split(separator: "=", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }

    /// Runs a command; returns its standard output, throws with its standard error on failure.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> String {
        let result = try run("/usr/bin/openssl", arguments)
        guard result.status == 0 else {
            throw TestClient.Failure(description: "openssl \(arguments.joined(separator: " ")) failed: \(result.error)")
        }
        return result.output
    }
}

enum TLSTestSupport {
    /// The reason of the oldest queued OpenSSL error, and clears the queue.
    static func reason() -> String {
        let code = ERR_peek_error()
        defer { ERR_clear_error() }
        guard code != 0, let text = ERR_reason_error_string(code) else { return "errno \(errno)" }
        return String(cString: text)
    }
}

extension TestClient {
    nonisolated(unsafe) static let socketMethod = sb_bio_method_new()

    /// Performs a TLS handshake on the connected socket, verifying the server
    /// against `caFile` for `host`, offering ALPN `h2,http/1.1`.
    func startTLS(caFile: String, host: String = "localhost", minVersion: Int32 = 0, maxVersion: Int32 = 0) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Failure(description: "SSL_CTX_new failed") }
        defer { SSL_CTX_free(context) }  // the session keeps its own reference
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
            throw Failure(description: "cannot load \(caFile): \(TLSTestSupport.reason())")
        }
        // Let the client offer what the server must refuse (e.g. TLS 1.1).
        if minVersion != 0 {
            SSL_CTX_set_security_level(context, 0)
            _ = SSL_CTX_set_cipher_list(context, "DEFAULT:@SECLEVEL=0")
        }
        _ = sb_SSL_CTX_set_min_proto_version(context, minVersion)
        _ = sb_SSL_CTX_set_max_proto_version(context, maxVersion)
        guard let session = SSL_new(context) else { throw Failure(description: "SSL_new failed") }
        guard let method = Self.socketMethod, sb_SSL_set_socket(session, fd, method) == 1 else {
            SSL_free(session)
            throw Failure(description: "cannot attach the socket")
        }
        _ = sb_SSL_set_tlsext_host_name(session, host)
        _ = SSL_set1_host(session, host)
        let protocols: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)
        _ = SSL_set_alpn_protos(session, protocols, UInt32(protocols.count))
        self.attach(session)
        ERR_clear_error()
        guard SSL_connect(session) == 1 else {
            throw Failure(description: "TLS handshake failed: \(TLSTestSupport.reason())")
        }
    }

    /// "TLSv1.3", "TLSv1.2".
    var tlsVersion: String { session.map { String(cString: SSL_get_version($0)) } ?? "none" }

    var tlsCipher: String {
        guard let session, let cipher = SSL_get_current_cipher(session) else { return "none" }
        return String(cString: SSL_CIPHER_get_name(cipher))
    }

    /// The protocol the server selected by ALPN, "" for none.
    var alpnProtocol: String {
        guard let session else { return "" }
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(session, &data, &length)
        guard let data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// SHA-256 fingerprint of the server's certificate, colon-separated hex (as `openssl x509 -fingerprint`).
    var peerFingerprint: String {
        guard let session, let certificate = SSL_get1_peer_certificate(session) else { return "" }
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
    var receivedCloseNotify: Bool {
        guard let session else { return false }
        return SSL_get_shutdown(session) & SSL_RECEIVED_SHUTDOWN != 0
    }
}
