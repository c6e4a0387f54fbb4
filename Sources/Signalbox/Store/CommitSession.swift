import Base
import Logging
import PostgresNIO

/// The pool connection that the group commits of one busy stretch share (``GroupCommit``'s
/// `idle` ends the stretch): a lease per group cost about 39,000 instructions (the pool's state
/// machine, and the keep-alive and idle timers it starts and cancels for every connection it
/// parks), where back-to-back groups need the same connection each time.
///
/// postgres-nio lends a connection only for a closure's lifetime, so a task holds the lease
/// until ``end()``. A stretch also ends on any failed group (the connection may be broken)
/// and whenever the primary's pool changed (a failover, a timeout that replaced the pool):
/// the next group then leases afresh from the pool in use.
final class CommitSession: Sendable {
    private struct Held {
        let connection: PostgresConnection
        let generation: Int
        let release: CheckedContinuation<Void, Never>
    }

    private let held = Locked<Held?>(nil)

    deinit { end() }

    /// The held connection when it is of `lease`'s pool; else one leased from that pool now and
    /// held until ``end()``.
    func connection(of lease: PostgresPrimary.Lease) async throws -> PostgresConnection {
        if let connection = held.withLock({ $0?.generation == lease.generation ? $0?.connection : nil }) { return connection }
        end()
        let held = self.held
        return try await withCheckedThrowingContinuation { (delivered: CheckedContinuation<PostgresConnection, any Error>) in
            Task {
                do {
                    try await lease.client.withConnection { connection in
                        await withCheckedContinuation { (release: CheckedContinuation<Void, Never>) in
                            let replaced = held.withLock { held in
                                defer { held = Held(connection: connection, generation: lease.generation, release: release) }
                                return held
                            }
                            replaced?.release.resume()
                            delivered.resume(returning: connection)
                        }
                    }
                } catch {
                    // No connection came (the pool failed or closed): the closure never ran.
                    delivered.resume(throwing: error)
                }
            }
        }
    }

    /// Gives the held connection back to the pool.
    func end() {
        held.withLock { held in defer { held = nil }; return held }?.release.resume()
    }
}
