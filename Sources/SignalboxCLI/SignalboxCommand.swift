import ArgumentParser
import Foundation
import Dispatch
import Signalbox

/// `signalbox`: parse flags, then hand over to the service.
@main
struct SignalboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signalbox",
        abstract: "A self-hosted instant-search service whose endpoints are Rx traits.",
        discussion: SettingsReference.helpText,
        // With no subcommand, `signalbox` serves (this command's own options and `run`).
        subcommands: [ImportCommand.self]
    )

    /// ArgumentParser's `main`, except for `signalbox import`: parsed as a command of its own, so
    /// its `--api-key` is not taken by the serving command's option of that name, and exiting 2 on a
    /// usage error, the code scripts expect of a client (serving keeps ArgumentParser's 64, EX_USAGE).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.first == ImportCommand.configuration.commandName else {
            return main(arguments)
        }
        do {
            var command = try ImportCommand.parseAsRoot(Array(arguments.dropFirst()))
            try command.run()
        } catch {
            if ImportCommand.exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((ImportCommand.fullMessage(for: error) + "\n").utf8))
                ImportCommand.exit(withError: ExitCode(2))  // the message is written above; ExitCode prints nothing
            }
            ImportCommand.exit(withError: error)
        }
    }

    @Option(help: "Address to listen on (SIGNALBOX_HOST).") var host: String?
    @Option(help: "TCP port to listen on (SIGNALBOX_PORT).") var port: Int?
    @Option(help: "JSON configuration file (SIGNALBOX_CONFIG; default \(SettingsLoader.defaultConfigFile) if present).")
    var config: String?
    @Option(help: "Data set to serve instead of the embedded cities (SIGNALBOX_DATA).") var data: String?
    @Option(help: "SQLite file that records every write (SIGNALBOX_STORE).") var store: String?
    @Option(help: "Bearer key that writes must present (SIGNALBOX_API_KEY).") var apiKey: String?
    @Flag(help: "Development only: accept writes without a key when none is configured.")
    var allowUnauthenticatedWrites = false
    @Option(help: "PEM certificate chain; with --tls-key serves HTTPS (SIGNALBOX_TLS_CERT).") var tlsCert: String?
    @Option(help: "PEM private key of the certificate (SIGNALBOX_TLS_KEY).") var tlsKey: String?
    @Option(help: "Plain-HTTP port that redirects to HTTPS with 308 (SIGNALBOX_TLS_REDIRECT_PORT).") var tlsRedirectPort: Int?
    @Option(help: "Log level (SIGNALBOX_LOG_LEVEL).") var logLevel: String?
    @Option(help: "Log format: text or json (SIGNALBOX_LOG_FORMAT).") var logFormat: String?
    @Option(name: .customLong("set"), help: ArgumentHelp("Any setting below, as key=value.", valueName: "key=value"))
    var settings: [String] = []

    func run() throws {
        var overrides: [String: String] = [:]
        for pair in settings {
            guard let equals = pair.firstIndex(of: "=") else {
                throw ValidationError("--set takes key=value, got \(pair)")
            }
            overrides[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        let named: [(String, String?)] = [
            ("host", host), ("port", port.map(String.init)), ("data", data), ("store", store), ("apiKey", apiKey),
            ("log.level", logLevel), ("log.format", logFormat),
            ("tls.cert", tlsCert), ("tls.key", tlsKey), ("tls.redirectPort", tlsRedirectPort.map(String.init)),
            ("allowUnauthenticatedWrites", allowUnauthenticatedWrites ? "true" : nil),
        ]
        for case (let key, let value?) in named { overrides[key] = value }
        let source = SettingsSource(overrides: overrides, configFile: config)
        do {
            try Self.runBlocking(source)
        } catch let error as SettingsError {
            throw ValidationError(error.description)
        } catch let error as StoreStartError {
            // One line naming the file, and an exit code of its own (see StoreStartError.exitCode).
            FileHandle.standardError.write(Data("signalbox: \(error)\n".utf8))
            throw ExitCode(error.exitCode)
        } catch let error as ClusterStartError {
            FileHandle.standardError.write(Data("signalbox: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG: this replica does not fit the cluster
        }
    }

    /// Runs the service while the main thread waits on a semaphore. Not an async `run`: Swift's
    /// async main parks the main thread in `dispatchMain`, which valgrind 3.19 does not survive,
    /// and the release binary is profiled with callgrind (Benchmarks/Service/search-instructions.sh).
    private static func runBlocking(_ source: SettingsSource) throws {
        final class Outcome: @unchecked Sendable {  // written before `done` is signalled, read after
            var error: (any Error)?
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { try await ServiceRunner.run(source) } catch { outcome.error = error }
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw error }
    }
}
