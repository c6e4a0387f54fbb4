import Foundation
import HTTPTesting
import Logging
import Testing
@testable import Signalbox

/// A throwaway PostgreSQL cluster for this test process, started once by `scripts/pg-scratch`
/// (initdb in a temp dir, loopback port, run as an unprivileged user under root) and
/// stopped when the process exits. Each test gets a database of its own.
///
/// Every call is async and runs its child process off the pool (``ChildProcess``): a blocking wait on
/// the cooperative pool (two threads on a two-core machine) stalled every other test, and the
/// store's 15-second connect limit ran out while no thread was free to take the answer (CI, 7
/// PostgreSQL tests at once).
enum ScratchPostgres {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// How long a store may take to connect and migrate in a test: the whole package's tests share
    /// two cooperative threads here, so a continuation can wait its turn for many seconds (and
    /// longer in a sanitized run: times ``TestTime/scale``).
    static let startTimeout = TestTime.scaled(.seconds(120))

    /// The server's URL without a database, or the reason there is none (PostgreSQL is not installed here).
    static var server: Result<URLComponents, ScratchPostgresUnavailable> {
        get async { await starting.value }
    }

    private static let starting = Task { await start() }

    private static func start() async -> Result<URLComponents, ScratchPostgresUnavailable> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-pg-\(UUID().uuidString)").path
        let (status, output) = await run(["start", directory])
        guard status == 0, let components = URLComponents(string: output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            return .failure(ScratchPostgresUnavailable(reason: status == 3 ? "PostgreSQL is not installed" : output))
        }
        directoryToStop = directory
        // Foundation's Process cannot wait for a child while the process exits: plain system(3) here.
        atexit {
            if let directory = ScratchPostgres.directoryToStop {
                _ = system("bash '\(ScratchPostgres.root.path)/scripts/pg-scratch' stop '\(directory)' >/dev/null 2>&1")
            }
        }
        return .success(components)
    }

    nonisolated(unsafe) static var directoryToStop: String?

    /// Whether tests that need PostgreSQL can run; they are skipped with the reason otherwise.
    static func isAvailable() async -> Bool {
        if case .failure(let unavailable) = await server {
            print("skipping PostgreSQL tests: \(unavailable.reason) (apt-get install postgresql)")
            return false
        }
        return true
    }

    /// A new empty database's store URL.
    static func freshDatabase() async throws -> PostgresURL {
        var components = try await server.get()
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = components.string!
        let (status, output) = await psql(admin, "CREATE DATABASE \(name)")
        guard status == 0 else { throw ScratchPostgresUnavailable(reason: output) }
        components.path = "/\(name)"
        return try PostgresURL(components.string!)
    }

    /// Runs one SQL statement with psql.
    @discardableResult
    static func psql(_ url: String, _ sql: String) async -> (Int32, String) {
        let result = await ChildProcess.run("/usr/bin/env", ["psql", url, "-qAtc", sql])
        return (result.status, result.output)
    }

    private static func run(_ arguments: [String]) async -> (Int32, String) {
        let result = await ChildProcess.run("/bin/bash", [root.appendingPathComponent("scripts/pg-scratch").path] + arguments)
        return (result.status, result.output)
    }
}

struct ScratchPostgresUnavailable: Error {
    let reason: String
}
