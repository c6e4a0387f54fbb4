import Base
import Dispatch
import Foundation
import Search

/// Builds the collections a store holds, at start: each schema, its documents decoded on all
/// cores, its index built; what fails to decode under its collection's schema stays stored
/// but is not served.
enum CollectionLoader {
    static func load(_ snapshot: StoreSnapshot, maxLiveQueries: Int) -> [ServedCollection] {
        var bodies: [String: [Data]] = [:]
        for change in snapshot.documents where change.collection != citiesCollection {
            if let body = change.body { bodies[change.collection, default: []].append(body) }
        }
        return snapshot.collections.compactMap { stored in
            guard let schema = try? CollectionSchema.decode(json: Array(stored.schema)) else { return nil }
            let documents = decode(bodies[stored.name] ?? [], schema: schema)
            return ServedCollection(
                name: stored.name, schema: schema, index: CollectionIndex(schema: schema, documents: documents),
                maxLiveQueries: maxLiveQueries)
        }
    }

    /// `bodies` decoded in parallel chunks, in order.
    static func decode(_ bodies: [Data], schema: CollectionSchema) -> [CollectionDocument] {
        let decoder = CollectionDocumentDecoder(schema: schema)
        let chunks = bodies.count < 4_096 ? 1 : ProcessInfo.processInfo.activeProcessorCount * 4
        let size = (bodies.count + chunks - 1) / max(chunks, 1)
        let results = Locked<[[CollectionDocument]]>(Array(repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var documents: [CollectionDocument] = []
            for i in min(chunk * size, bodies.count)..<min((chunk + 1) * size, bodies.count) {
                if let document = try? decoder.decode(Array(bodies[i])) { documents.append(document) }
            }
            results.withLock { $0[chunk] = documents }
        }
        return results.withLock { $0.flatMap { $0 } }
    }
}
