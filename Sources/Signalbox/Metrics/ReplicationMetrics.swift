import Base
import Dispatch
import Metrics
import Rx

/// Where this replica stands against the cluster: applied and head sequence numbers,
/// the lag between them in changes and seconds, reconnects, and reads held for `Signalbox-Min-Seq`.
final class ReplicationMetrics: Sendable {
    private struct State {
        var head: Int64 = 0
        var applied: Int64 = 0
        /// When this replica first fell behind the head it knows; nil while caught up.
        var behindSince: UInt64?
    }

    private let state = Locked(State())
    private let appliedGauge = Gauge(label: "signalbox_replication_applied_sequence")
    private let headGauge = Gauge(label: "signalbox_replication_head_sequence")
    private let lagChangesGauge = Gauge(label: "signalbox_replication_lag_changes")
    private let lagSecondsGauge = Gauge(label: "signalbox_replication_lag_seconds")
    private let reconnects = Counter(label: "signalbox_replication_reconnects_total")
    private let rewinds = Counter(label: "signalbox_replication_rewinds_total")
    private let minSeqWait = Timer(label: "signalbox_min_seq_wait_seconds")

    /// The lag now: changes behind the known head, and seconds since this replica fell behind.
    var lag: (changes: Int64, seconds: Double) {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            (max(0, state.head - state.applied), state.behindSince.map { Double(now &- $0) / 1e9 } ?? 0)
        }
    }

    /// The newest sequence number this replica knows was committed.
    var head: Int64 { state.withLock { $0.head } }

    func headSeen(_ head: Int64) { update { $0.head = max($0.head, head) } }
    func applied(_ sequence: Int64) { update { $0.applied = sequence } }
    func reconnected() { reconnects.increment() }
    /// A failover lost changes this replica had applied, and it went back (``HistoryCheck``).
    func rewound() { rewinds.increment() }
    func waitedForMinimumSequence(nanoseconds: UInt64) { minSeqWait.recordNanoseconds(Int64(nanoseconds)) }

    /// Refreshes the lag gauges; the scrape calls it too, so seconds grow while nothing arrives.
    func refresh() { update { _ in } }

    private func update(_ change: (inout State) -> Void) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (head, applied, seconds) = state.withLock { state in
            change(&state)
            state.head = max(state.head, state.applied)
            if state.head > state.applied {
                if state.behindSince == nil { state.behindSince = now }
            } else {
                state.behindSince = nil
            }
            return (state.head, state.applied, state.behindSince.map { Double(now &- $0) / 1e9 } ?? 0)
        }
        appliedGauge.record(applied)
        headGauge.record(head)
        lagChangesGauge.record(head - applied)
        lagSecondsGauge.record(seconds)
    }
}
