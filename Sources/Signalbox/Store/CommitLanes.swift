import Base

/// The connections a replica's pipelined group commits use (``GroupCommit``, pipelined), one group
/// on each at a time: a group's statement and then its flush run on its lane's connection (the
/// flush must be on the connection that committed: on another, opened after a crash, it could
/// succeed on a server that lost the group), while the next group commits on another lane.
///
/// At most `count` groups are in flight; the next one waits for a lane, and the writes arriving
/// meanwhile join it. Each lane keeps its connection while groups come back to back
/// (``CommitSession``); ``end()`` gives the free ones back when the groups run out.
final class CommitLanes: Sendable {
    /// One group's hold on a lane, given back once (``release(broken:)``).
    final class Lane: Sendable {
        let session: CommitSession
        private let lanes: CommitLanes
        private let released = Locked(false)

        fileprivate init(_ session: CommitSession, of lanes: CommitLanes) {
            self.session = session
            self.lanes = lanes
        }

        /// Gives the lane back; `broken`: its connection may be broken (or a query on it may still
        /// run after a time limit gave up on it), so it goes back to the pool first. Only the first call counts.
        func release(broken: Bool = false) {
            guard released.withLock({ released in defer { released = true }; return !released }) else { return }
            if broken { session.end() }
            lanes.giveBack(session)
        }
    }

    private struct Waiting {
        let id: UInt64
        let continuation: CheckedContinuation<CommitSession, any Error>
    }

    private struct State {
        var free: [CommitSession]
        var waiting: [Waiting] = []
        var nextID: UInt64 = 0
    }

    private let sessions: [CommitSession]
    private let state: Locked<State>

    /// `count`: how many groups may be in flight at once (at least one).
    init(count: Int) {
        sessions = (0..<max(count, 1)).map { _ in CommitSession() }
        state = Locked(State(free: sessions))
    }

    /// A free lane, once there is one; a cancelled caller stops waiting with `CancellationError`.
    func acquire() async throws -> Lane {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let session = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CommitSession, any Error>) in
                let free = state.withLock { state -> CommitSession? in
                    if let session = state.free.popLast() { return session }
                    state.waiting.append(Waiting(id: id, continuation: continuation))
                    return nil
                }
                if let free { continuation.resume(returning: free) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> Waiting? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiting?.continuation.resume(throwing: CancellationError())
        }
        return Lane(session, of: self)
    }

    private func giveBack(_ session: CommitSession) {
        let next = state.withLock { state -> Waiting? in
            guard !state.waiting.isEmpty else {
                state.free.append(session)
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: session)
    }

    /// Lanes waiting for a group (for tests).
    var freeCount: Int { state.withLock { $0.free.count } }
    /// Groups waiting for a lane (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Gives the free lanes' connections back to the pool (the groups ran out).
    func end() {
        for session in state.withLock({ $0.free }) { session.end() }
    }

    /// Gives every lane's connection back (the store closes).
    func endAll() {
        for session in sessions { session.end() }
    }
}
