import Base

/// Open connections per client address, for `http.maxConnectionsPerClient`.
///
/// Touched once when a connection is accepted and once when it closes (never per request).
final class ClientConnections: Sendable {
    private let counts = Locked<[String: Int]>([:])

    /// Counts one more connection from `remote` unless it already holds `limit` (0: no limit);
    /// false when it is refused (and not counted).
    func open(_ remote: String, limit: Int) -> Bool {
        counts.withLock { counts in
            let count = counts[remote, default: 0]
            if limit > 0 && count >= limit { return false }
            counts[remote] = count + 1
            return true
        }
    }

    func close(_ remote: String) {
        counts.withLock { counts in
            guard let count = counts[remote] else { return }
            counts[remote] = count > 1 ? count - 1 : nil
        }
    }

    /// Connections counted for `remote` (tests).
    func count(_ remote: String) -> Int { counts.withLock { $0[remote, default: 0] } }
}
