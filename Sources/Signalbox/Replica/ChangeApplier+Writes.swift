import Rx

extension ChangeApplier {
    /// Applies `change`, a write this replica has just committed, and returns once it is served:
    /// searchable and sent to `/events`. Throws ``NotAppliedInTime`` (503, the write durable) when
    /// that takes longer than `limit`: a write is never answered done before a search finds it
    /// (issue 25). It waits behind what this replica applies first: an import's batch, or on
    /// PostgreSQL another replica's commit the follower has yet to read.
    func applyWrite(_ change: Change, waitingAtMost limit: RxTimeInterval) async throws {
        guard await apply(change, waitingAtMost: limit) else {
            throw NotAppliedInTime(sequence: change.sequence, limit: limit, isDurableWrite: true)
        }
    }
}
