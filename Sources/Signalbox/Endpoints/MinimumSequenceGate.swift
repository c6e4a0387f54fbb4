import Dispatch
import Foundation
import HTTP
import HTTPTypes
import Rx

/// Read-your-writes on any replica: a `GET` with `Signalbox-Min-Seq: N` is answered
/// only once this replica has applied change N, or with 503 and `Retry-After` when
/// that takes longer than the configured wait. Without the header a read goes at once.
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
        guard wanted > 0, wanted > applier.applied.value else { return nil }
        let started = DispatchTime.now().uptimeNanoseconds
        let (applier, metrics) = (self.applier, self.metrics)
        return applier.applied(atLeast: wanted, within: wait())
            .do(onCompleted: { metrics.waitedForMinimumSequence(nanoseconds: DispatchTime.now().uptimeNanoseconds &- started) })
            .asObservable()
            .catch { error in
                // Still past every head this replica has heard of: an id the store never gave.
                if let resume, resume > metrics.head, minimum <= applier.applied.value { return .empty() }
                throw StoreProblem.httpError(for: error)
            }
            .asCompletable()
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
