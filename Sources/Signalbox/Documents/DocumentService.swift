import Dispatch
import Foundation
import HTTP
import Rx
import Search

/// Reads and writes documents: store first (durable), then the index, then
/// the lookup cache and the change feed, all on one serial writer so event
/// ids, stored order and index order agree.
final class DocumentService: Sendable {
    let index: SearchIndex
    private let store: DocumentStore
    private let feed: ChangeFeed
    private let lookups: SearchLookups
    private let metrics: ServiceMetrics
    private let writer = DispatchQueue(label: "signalbox.writer")

    init(index: SearchIndex, store: DocumentStore, feed: ChangeFeed, lookups: SearchLookups, metrics: ServiceMetrics) {
        self.index = index
        self.store = store
        self.feed = feed
        self.lookups = lookups
        self.metrics = metrics
    }

    /// The document with `id`, or empty.
    func document(id: String) -> Maybe<Document> {
        Maybe.deferred { [index] in
            index.document(id: id).map(Maybe.just) ?? Maybe.empty()
        }
    }

    /// Stores `document` durably, then makes it visible; completes when both are done.
    func upsert(_ document: Document) -> Completable {
        write { [self] in
            let body = try Self.encoder.encode(document)
            let sequence = try store.write(id: document.id, body: body)
            let previous = index.document(id: document.id)
            index.upsert(document)
            return ChangeEvent(sequence: sequence, kind: .upserted, documentID: document.id, document: document, previous: previous, storedBody: body)
        }
    }

    /// Deletes the document with `id`; fails with 404 when there is none.
    func delete(id: String) -> Completable {
        write { [self] in
            guard let previous = index.document(id: id) else {
                throw HTTPError(.notFound, detail: "No document has the id \(id).")
            }
            let sequence = try store.write(id: id, body: nil)
            index.delete(id: id)
            return ChangeEvent(sequence: sequence, kind: .deleted, documentID: id, document: nil, previous: previous)
        }
    }

    private func write(_ body: @escaping @Sendable () throws -> ChangeEvent) -> Completable {
        Completable.create { [self] observer in
            // The write goes on even if the client leaves: an accepted write is never half done.
            writer.async { [self] in
                do {
                    let change = try body()
                    lookups.apply(change)
                    feed.publish(change)
                    metrics.write()
                    metrics.documentCount(index.count)
                    observer(.completed)
                } catch {
                    observer(.error(error))
                }
            }
            return Disposables.create()
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
