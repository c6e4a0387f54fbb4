import Base
import Foundation
import Rx
import Search

/// Reads and writes documents.
///
/// A write is made durable in the store, which gives it its sequence number, then applied to
/// this replica (index, lookup cache, change feed) by the ``ChangeApplier``, and answered with
/// a ``WriteReceipt`` once this replica serves it: durable and searchable before the answer.
final class DocumentService: Sendable {
    let index: SearchIndex
    private let store: any DocumentStore
    private let applier: ChangeApplier
    private let metrics: ServiceMetrics
    /// How long a write waits for this replica to apply it before it is answered 503 (`writes.applyWait`).
    private let applyWait: RxTimeInterval

    init(index: SearchIndex, store: any DocumentStore, applier: ChangeApplier, metrics: ServiceMetrics, applyWait: RxTimeInterval) {
        self.index = index
        self.store = store
        self.applier = applier
        self.metrics = metrics
        self.applyWait = applyWait
    }

    /// The document with `id`, or empty.
    func document(id: String) -> Maybe<Document> {
        Maybe.deferred { [index] in
            index.document(id: id).map(Maybe.just) ?? Maybe.empty()
        }
    }

    /// Stores `document` durably, then makes it visible; returns the change's sequence number.
    func upsert(_ document: Document) async throws -> WriteReceipt {
        // Written directly where that gives the encoder's bytes (it cost 49,000 instructions a city).
        let body = try DocumentJSON.body(of: document).map { Data($0) } ?? JSONCoding.encoder.encode(document)
        return try await commitAndApply(.upsert(id: document.id, body: body), document: document)
    }

    /// Deletes the document with `id`; throws ``DocumentNotFound`` when there is none.
    func delete(id: String) async throws -> WriteReceipt {
        // With no row in the store for `id`, this replica's index has it exactly when the base data has.
        try await commitAndApply(.delete(id: id, inBaseData: index.document(id: id) != nil), document: nil)
    }

    /// The whole of a write: durable in the store, then applied to this replica.
    /// The change is staged with the rest of its commit group as soon as the group is durable,
    /// so the group is applied as one run.
    private func commitAndApply(_ write: StoreWrite, document: Document?) async throws -> WriteReceipt {
        let sequence = try await store.commit(write) { [applier] sequence in
            applier.stage(ChangeApplier.Change(sequence: sequence, id: write.id, document: document, body: write.body))
        }
        metrics.write()
        try await applier.applyWrite(
            ChangeApplier.Change(sequence: sequence, id: write.id, document: document, body: write.body), waitingAtMost: applyWait)
        return WriteReceipt(sequence: sequence)
    }
}

/// A committed write: `204 No Content` with its sequence number in `Signalbox-Seq`.
struct WriteReceipt: Sendable, Equatable {
    let sequence: Int64
}
