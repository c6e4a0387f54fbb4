import Dispatch
import Foundation
import HTTP
import HTTPTypes
import Rx

/// Read-your-writes on any replica: a `GET` with `Signalbox-Min-Seq: N` is answered
/// only once this replica has applied change N, or with 503 and `Retry-After` when
/// that takes longer than the configured wait. Without the header a read goes at once.
///
/// A resume (`Last-Event-ID: N` of this store's epoch) is held the same way while N is a
/// change the store has committed but this replica has not applied yet, as on a replica
/// that has just started: the client waits, or is refused before anything is sent, and is
/// never sent a `reset` for a change the log still holds. An id the store never gave goes
/// through, and the stream answers it with a `reset`.
struct MinimumSequenceGate: Sendable {
    static let field = HTTPField.Name("Signalbox-Min-Seq")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let epochField = HTTPField.Name("Signalbox-Epoch")!

    let applier: ChangeApplier
    let metrics: ReplicationMetrics
    /// The store's epoch: a resume from another store's life is not held.
    let epoch: String
    let wait: @Sendable () -> RxTimeInterval

    func hold(_ request: Request) -> Completable? {
        guard request.method == .get || request.method == .head else { return nil }
        var wanted = resumePosition(of: request) ?? 0
        if let text = request.headerFields[Self.field] {
            guard let sequence = Int64(text.trimmingCharacters(in: .whitespaces)), sequence >= 0 else {
                return .error(HTTPError(.badRequest, detail: "Signalbox-Min-Seq must be a non-negative integer, not \(text)."))
            }
            wanted = max(wanted, sequence)
        }
        guard wanted > applier.applied.value else { return nil }
        let started = DispatchTime.now().uptimeNanoseconds
        return applier.applied(atLeast: wanted, within: wait())
            .do(onCompleted: { [metrics] in metrics.waitedForMinimumSequence(nanoseconds: DispatchTime.now().uptimeNanoseconds &- started) })
            .asObservable()
            .catch { throw StoreProblem.httpError(for: $0) }
            .asCompletable()
    }

    /// The `Last-Event-ID` of a resume this replica must catch up to first: of this store's
    /// epoch (or none given) and committed in the store as far as this replica has seen.
    private func resumePosition(of request: Request) -> Int64? {
        guard let text = request.headerFields[Self.lastEventID], let id = Int64(text), id > 0 else { return nil }
        let clientEpoch = request.headerFields[Self.epochField] ?? request.queryItems(named: "epoch").first
        if let clientEpoch, !clientEpoch.isEmpty, clientEpoch != epoch { return nil }
        return id <= metrics.head ? id : nil
    }
}
