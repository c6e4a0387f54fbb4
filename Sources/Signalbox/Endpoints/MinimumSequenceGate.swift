import Dispatch
import Foundation
import HTTP
import HTTPTypes
import Rx

/// Read-your-writes on any replica: a `GET` with `Signalbox-Min-Seq: N` is answered
/// only once this replica has applied change N, or with 503 and `Retry-After` when
/// that takes longer than the configured wait. Without the header a read goes at once.
struct MinimumSequenceGate: Sendable {
    static let field = HTTPField.Name("Signalbox-Min-Seq")!

    let applier: ChangeApplier
    let metrics: ReplicationMetrics
    let wait: @Sendable () -> RxTimeInterval

    func hold(_ request: Request) -> Completable? {
        guard request.method == .get || request.method == .head, let text = request.headerFields[Self.field] else {
            return nil
        }
        guard let sequence = Int64(text.trimmingCharacters(in: .whitespaces)), sequence >= 0 else {
            return .error(HTTPError(.badRequest, detail: "Signalbox-Min-Seq must be a non-negative integer, not \(text)."))
        }
        guard sequence > applier.applied.value else { return nil }
        let started = DispatchTime.now().uptimeNanoseconds
        return applier.applied(atLeast: sequence, within: wait())
            .do(onCompleted: { [metrics] in metrics.waitedForMinimumSequence(nanoseconds: DispatchTime.now().uptimeNanoseconds &- started) })
            .asObservable()
            .catch { throw StoreProblem.httpError(for: $0) }
            .asCompletable()
    }
}
