import Foundation
import HTTPTesting

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
    func issue(_ name: String) async throws -> Pair {
        let pair = Pair(certificate: path(name + ".crt"), key: path(name + ".key"))
        try await Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", pair.key, "-out", pair.certificate,
        ])
        return pair
    }

    /// A certificate for `key` that expired yesterday (`-days -1`: not after is before now).
    func expired(_ name: String, key: String) async throws -> String {
        let request = path(name + ".csr")
        let certificate = path(name + ".crt")
        try await Self.openssl(["req", "-new", "-key", key, "-subj", "/CN=localhost", "-out", request])
        try await Self.openssl(["x509", "-req", "-in", request, "-signkey", key, "-days", "-1", "-out", certificate])
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
    func fingerprint(_ certificate: String) async throws -> String {
        try await Self.openssl(["x509", "-in", certificate, "-noout", "-fingerprint", "-sha256"])
            .split(separator: "=", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }

    @discardableResult
    static func openssl(_ arguments: [String]) async throws -> String {
        let result = await ChildProcess.run("/usr/bin/openssl", arguments, mergingErrors: false)
        guard result.status == 0 else {
            throw TestFailure("openssl \(arguments.joined(separator: " ")) failed with status \(result.status)")
        }
        return result.output
    }
}
