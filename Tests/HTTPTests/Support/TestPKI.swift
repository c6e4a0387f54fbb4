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
            throw TestFailure("openssl \(arguments.joined(separator: " ")) failed: \(result.error)")
        }
        return result.output
    }
}
