import Base
import Dispatch
import Foundation
import Search

/// Builds the collections a store holds, at start. A collection whose persisted index the
/// store's read took (`StoreSnapshot.covered`) starts from that index and applies only the
/// documents written since; any other is built as before: its documents decoded on all cores,
/// its index built. What fails to decode under its collection's schema stays stored but is not
/// served.
enum CollectionLoader {
    /// The served collections, and the names of those built from their documents (not loaded).
    static func load(
        _ snapshot: StoreSnapshot, persisted: [String: PersistedIndexes.Loaded] = [:], maxLiveQueries: Int
    ) -> (collections: [ServedCollection], rebuilt: [String]) {
        var bodies: [String: [Data]] = [:]
        var later: [String: [StoredChange]] = [:]
        for change in snapshot.documents where change.collection != citiesCollection {
            if snapshot.covered[change.collection] != nil {
                later[change.collection, default: []].append(change)
            } else if let body = change.body {
                bodies[change.collection, default: []].append(body)
            }
        }
        var rebuilt: [String] = []
        let collections = snapshot.collections.compactMap { stored -> ServedCollection? in
            guard let schema = try? CollectionSchema.decode(json: Array(stored.schema)) else { return nil }
            let index: CollectionIndex
            if snapshot.covered[stored.name] != nil, let loaded = persisted[stored.name] {
                index = loaded.index
                catchUp(index, with: later[stored.name] ?? [], schema: schema)
            } else {
                index = CollectionIndex(schema: schema, documents: decode(bodies[stored.name] ?? [], schema: schema))
                rebuilt.append(stored.name)
            }
            // Every change up to the head is in the index now, whichever way it was made.
            index.advance(to: snapshot.head)
            return ServedCollection(name: stored.name, schema: schema, index: index, maxLiveQueries: maxLiveQueries)
        }
        return (collections, rebuilt)
    }

    /// Applies the documents written after a loaded index was saved (their latest write each, a
    /// deleted one as a delete), in one batch.
    private static func catchUp(_ index: CollectionIndex, with changes: [StoredChange], schema: CollectionSchema) {
        guard let last = changes.last else { return }
        let decoded = decode(changes.map { $0.body ?? Data() }, schema: schema, keepingFailures: true)
        index.apply(
            zip(changes, decoded).map { change, document in document.map(CollectionChange.upsert) ?? .delete(id: change.id) },
            through: last.sequence)
    }

    /// `bodies` decoded in parallel chunks, in order (those that fail left out).
    static func decode(_ bodies: [Data], schema: CollectionSchema) -> [CollectionDocument] {
        decode(bodies, schema: schema, keepingFailures: false).compactMap { $0 }
    }

    /// `bodies` decoded in parallel chunks, in order; with `keepingFailures`, nil where one fails.
    private static func decode(_ bodies: [Data], schema: CollectionSchema, keepingFailures: Bool) -> [CollectionDocument?] {
        let decoder = CollectionDocumentDecoder(schema: schema)
        let chunks = bodies.count < 4_096 ? 1 : ProcessInfo.processInfo.activeProcessorCount * 4
        let size = (bodies.count + chunks - 1) / max(chunks, 1)
        let results = Locked<[[CollectionDocument?]]>(Array(repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var documents: [CollectionDocument?] = []
            for i in min(chunk * size, bodies.count)..<min((chunk + 1) * size, bodies.count) {
                let document = bodies[i].isEmpty ? nil : try? decoder.decode(Array(bodies[i]))
                if document != nil || keepingFailures { documents.append(document) }
            }
            results.withLock { $0[chunk] = documents }
        }
        return results.withLock { $0.flatMap { $0 } }
    }
}
