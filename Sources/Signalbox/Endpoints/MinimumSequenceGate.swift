import Dispatch
import Foundation
import HTTP
import HTTPTypes
import Rx

/// Read-your-writes on any replica: a `GET` with `Signalbox-Min-Seq: N` is answered
/// only once this replica has applied change N, or with 503 and `Retry-After` when
/// that takes longer than the configured wait. Without the header a read goes at once.
/// A read of a collection also waits until N is served there: a document written during a
/// schema change that only the new schema fits is applied but searchable only once the
/// collection's new index takes over (``ServedCollection/served(through:by:)``).
///
/// A resume (`Last-Event-ID: N` of this store's epoch) is held the same way while this replica
/// has not applied N, as on a replica that has just started: the client waits, or is refused
/// before anything is sent, and is never sent a `reset` for a change the log still holds. An id
/// past the head this replica knows of may be one committed a moment ago (its notification on
/// the way) or one the store never gave: it is held as long, and if the head this replica knows
/// of is still below it when the wait is over, it goes through and the stream answers `reset`.
struct MinimumSequenceGate: Sendable {
    static let field = HTTPField.Name("Signalbox-Min-Seq")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let epochField = HTTPField.Name("Signalbox-Epoch")!

    let applier: ChangeApplier
    let metrics: ReplicationMetrics
    /// The store's epoch: a resume from another store's life is not held.
    let epoch: String
    let wait: @Sendable () -> RxTimeInterval
    /// Whether other processes commit too (PostgreSQL): then this replica may not have heard of the
    /// newest changes yet. On SQLite every commit is this process's, and the head it knows is exact.
    var othersCommit = true
    /// The collections served here, whose reads may wait for a schema change's new index.
    var collections: CollectionCatalog?

    func hold(_ request: Request) -> Completable? {
        guard request.method == .get || request.method == .head else { return nil }
        let resume = resumePosition(of: request)
        var minimum: Int64 = 0
        if let text = request.headerFields.value(of: Self.field) {
            guard let sequence = Int64(text.trimmingCharacters(in: .whitespaces)), sequence >= 0 else {
                return .error(HTTPError(.badRequest, detail: "Signalbox-Min-Seq must be a non-negative integer, not \(text)."))
            }
            minimum = sequence
        }
        let wanted = max(resume ?? 0, minimum)
        // Most reads ask for nothing: they go without reading the applied position (a lock and
        // a relay's value, 1,600 instructions on every GET, /healthz's included).
        guard wanted > 0 else { return nil }
        let read = minimum > 0 ? collectionsRead(by: request) : []
        guard wanted > applier.applied.value || read.contains(where: { $0.holdsBack(through: minimum) }) else { return nil }
        let started = DispatchTime.now()
        let limit = wait()
        let (applier, metrics) = (self.applier, self.metrics)
        return applier.applied(atLeast: wanted, within: limit)
            .asObservable()
            .catch { error in
                // Still past every head this replica has heard of: an id the store never gave.
                if let resume, resume > metrics.head, minimum <= applier.applied.value { return .empty() }
                throw error
            }
            .asCompletable()
            .andThen(Self.served(through: minimum, in: read, by: started + limit, limit: limit))
            .do(onCompleted: { metrics.waitedForMinimumSequence(nanoseconds: DispatchTime.now().uptimeNanoseconds &- started.uptimeNanoseconds) })
            .asObservable()
            .catch { throw StoreProblem.httpError(for: $0) }
            .asCompletable()
    }

    /// The collections a read of `request`'s path shows: the one it names, or all for the list.
    private func collectionsRead(by request: Request) -> [ServedCollection] {
        guard let collections, request.path == "/collections" || request.path.hasPrefix("/collections/") else { return [] }
        let name = request.path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: true).dropFirst().first
        guard let name else { return collections.all }
        return collections.named(String(name)).map { [$0] } ?? []
    }

    /// Completes once every write numbered up to `sequence` is served in `collections`; fails
    /// with ``NotAppliedInTime`` (a rebuild's) if that is not by `deadline`.
    private static func served(
        through sequence: Int64, in collections: [ServedCollection], by deadline: DispatchTime, limit: RxTimeInterval
    ) -> Completable {
        guard !collections.isEmpty else { return .empty() }
        return Completable.create { done in
            let task = Task {
                for collection in collections where await !collection.served(through: sequence, by: deadline) {
                    return done(.error(NotAppliedInTime(sequence: sequence, limit: limit, waitsForRebuild: true)))
                }
                done(.completed)
            }
            return Disposables.create { task.cancel() }
        }
    }

    /// The `Last-Event-ID` of a resume this replica must catch up to first: of this store's
    /// epoch (or none given).
    private func resumePosition(of request: Request) -> Int64? {
        guard let text = request.headerFields.value(of: Self.lastEventID), let id = Int64(text), id > 0 else { return nil }
        let clientEpoch = request.headerFields.value(of: Self.epochField) ?? request.queryItems(named: "epoch").first
        if let clientEpoch, !clientEpoch.isEmpty, clientEpoch != epoch { return nil }
        return othersCommit || id <= metrics.head ? id : nil
    }
}
