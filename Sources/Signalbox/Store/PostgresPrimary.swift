import Base
import Logging
import PostgresNIO

/// The connection pool to the host of the store URL that `target_session_attrs` picks: with
/// several hosts, the primary; found again when it fails.
///
/// postgres-nio's `PostgresClient` connects to one host, so this keeps one client at a time.
/// The first use probes the hosts in the URL's order, as libpq does (connect, then ask
/// `pg_is_in_recovery()` and `transaction_read_only`), and opens a client to the first that
/// qualifies. When a query fails in a way that points at the server (the connection broke, the
/// server shuts down or is read-only, a query timed out), that host is probed again; if it no
/// longer qualifies, its client is shut down and the next use searches the hosts again. A URL
/// with one host and `any` keeps today's single client, which reconnects by itself.
final class PostgresPrimary: Sendable {
    /// The client of the host in use, and which client it is (a later search makes a new one).
    struct Lease: Sendable {
        let client: PostgresClient
        let host: PostgresURL.Host
        let generation: Int
    }

    private struct Active {
        let lease: Lease
        let runner: Task<Void, Never>
        let since = ContinuousClock.now
    }

    private struct State {
        var active: Active?
        var searching: Task<Lease, any Error>?
        /// The last search that found no host, and why: given again to callers for `searchInterval`.
        var lastFailure: (at: ContinuousClock.Instant, error: StoreError)?
        var checking = false
        var generation = 0
        var closed = false
    }

    /// Least time between two searches of the hosts, so that while none qualifies (a standby
    /// not yet promoted) the writes failing meanwhile do not each probe every host.
    static let searchInterval = Duration.milliseconds(250)

    let url: PostgresURL
    private let logger: Logger
    /// postgres-nio's own log: it logs every failed connection attempt, which the follower reports once.
    private let quietLogger: Logger
    private let state = Locked(State())

    init(url: PostgresURL, logger: Logger) {
        self.url = url
        self.logger = logger
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        quietLogger = quiet
    }

    deinit { close() }

    /// The client to use now; searches the hosts first when there is none.
    func lease() async throws -> Lease {
        let (lease, search) = try state.withLock { state throws -> (Lease?, Task<Lease, any Error>?) in
            guard !state.closed else { throw StoreError.unavailable(detail: "the store is closed") }
            if let active = state.active { return (active.lease, nil) }
            if let failure = state.lastFailure, ContinuousClock.now - failure.at < Self.searchInterval { throw failure.error }
            if let searching = state.searching { return (nil, searching) }
            let search = Task { try await self.search() }
            state.searching = search
            return (nil, search)
        }
        if let lease { return lease }
        return try await search!.value
    }

    /// The host in use now (for the listener, which must listen where the writes commit).
    func host() async throws -> PostgresURL.Host {
        try await lease().host
    }

    /// A query on `lease` failed with `error`: when that points at the server, probes its host
    /// again and, if it no longer qualifies, drops its client so the next use searches anew.
    func failed(_ lease: Lease, with error: any Error) {
        guard url.choosesAmongHosts, Self.pointsAtTheServer(error) else { return }
        let check = state.withLock { state -> Bool in
            guard !state.checking, state.active?.lease.generation == lease.generation else { return false }
            state.checking = true
            return true
        }
        guard check else { return }
        Task {
            let (role, failure) = await probe(lease.host)
            let stillGood = role.map(url.targetSessionAttributes.accepts) ?? false
            let dropped = state.withLock { state -> Active? in
                state.checking = false
                guard !stillGood, state.active?.lease.generation == lease.generation else { return nil }
                defer { state.active = nil }
                return state.active
            }
            if let dropped {
                logger.warning(
                    "the store's host no longer qualifies; searching the hosts again",
                    metadata: ["host": "\(lease.host)", "found": "\(failure ?? role.map(Self.describe) ?? "nothing")"])
                dropped.runner.cancel()
            }
        }
    }

    /// A query got no answer within its time limit. The pool may hold a request that will never be
    /// answered (seen after a restart of the server), so the next query gets a new pool (for a URL
    /// of several hosts, after a new search); at most one per `searchInterval`.
    func timedOut() {
        let dropped = state.withLock { state -> Active? in
            guard let active = state.active, ContinuousClock.now - active.since >= Self.searchInterval else { return nil }
            state.active = nil
            return active
        }
        guard let dropped else { return }
        logger.warning("a query got no answer in time; the next one opens new connections", metadata: ["host": "\(dropped.lease.host)"])
        dropped.runner.cancel()
    }

    /// A connection of its own to `host` (the listener's) failed with `error`: as ``failed(_:with:)``
    /// for the client of that host, if it is still the one in use.
    func failed(host: PostgresURL.Host, with error: any Error) {
        guard let lease = state.withLock({ $0.active?.lease }), lease.host == host else { return }
        failed(lease, with: error)
    }

    func close() {
        let (active, searching) = state.withLock { state in
            state.closed = true
            defer { (state.active, state.searching) = (nil, nil) }
            return (state.active, state.searching)
        }
        active?.runner.cancel()
        searching?.cancel()
    }

    // MARK: Searching

    private func search() async throws -> Lease {
        let started = ContinuousClock.now
        var host: PostgresURL.Host?
        var findings: [String] = []
        if url.choosesAmongHosts {
            var probes: [(host: PostgresURL.Host, role: TargetSessionAttributes.ServerRole?)] = []
            for candidate in url.hosts {
                let (role, failure) = await probe(candidate)
                probes.append((candidate, role))
                findings.append("\(candidate): \(failure ?? role.map(Self.describe) ?? "?")")
                if let role, url.targetSessionAttributes.accepts(role) { break }  // no need to ask the rest
            }
            host = url.targetSessionAttributes.choose(from: probes)
        } else {
            host = url.hosts.first
        }
        guard let host else {
            let error = StoreError.unavailable(
                detail: "no host of \(url) is one to write to (target_session_attrs=\(url.targetSessionAttributes.rawValue)): "
                    + findings.joined(separator: "; "))
            state.withLock { state in
                state.searching = nil
                state.lastFailure = (started, error)
            }
            throw error
        }
        let client = PostgresClient(configuration: url.clientConfiguration(for: host), backgroundLogger: quietLogger)
        let runner = Task { await client.run() }
        let lease = try state.withLock { state throws -> Lease in
            state.searching = nil
            guard !state.closed else {
                runner.cancel()
                throw StoreError.unavailable(detail: "the store is closed")
            }
            state.generation += 1
            let lease = Lease(client: client, host: host, generation: state.generation)
            state.active = Active(lease: lease, runner: runner)
            state.lastFailure = nil
            return lease
        }
        if url.choosesAmongHosts {
            logger.info("using the store's host", metadata: ["host": "\(host)", "probed": "\(findings.joined(separator: "; "))"])
        }
        return lease
    }

    /// Connects to `host` on a connection of its own and asks what it is; the failure as text when it could not.
    private func probe(_ host: PostgresURL.Host) async -> (TargetSessionAttributes.ServerRole?, String?) {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try url.connectionConfiguration(for: host), id: 0, logger: quietLogger)
            do {
                var role: TargetSessionAttributes.ServerRole?
                let rows = try await connection.query(
                    "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'", logger: quietLogger)
                for try await (inRecovery, readOnly) in rows.decode((Bool, Bool).self) {
                    role = .init(inRecovery: inRecovery, readOnly: readOnly)
                }
                try? await connection.close()
                return (role, nil)
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            return (nil, Self.brief(error))
        }
    }

    private static func describe(_ role: TargetSessionAttributes.ServerRole) -> String {
        role.inRecovery ? "standby (in recovery)" : role.readOnly ? "read-only primary" : "primary (read-write)"
    }

    private static func brief(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// Whether `error` may mean the host went away or is no longer a primary, rather than a
    /// problem of the statement: the connection broke or timed out, the server is shutting
    /// down or starting, or it refused a write as read-only.
    static func pointsAtTheServer(_ error: any Error) -> Bool {
        if error is CancellationError { return true }  // cut off by the commit's time limit
        if case .unavailable = error as? StoreError { return true }
        if error is DocumentNotFound || error is PostgresDecodingError { return false }
        guard let error = error as? PSQLError else { return true }  // e.g. the pool's circuit breaker
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .queryCancelled, .poolClosed:
            return true
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            // 08: connection exception; 57: operator intervention (shutdown, starting up); 25006: read-only transaction.
            return state.hasPrefix("08") || state.hasPrefix("57") || state == "25006"
        default:
            return false
        }
    }
}
