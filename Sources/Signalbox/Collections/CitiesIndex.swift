import Foundation
import Search

/// The built-in cities' collection index at start: loaded from its saved folder when that was
/// saved from the same base data set and store (``PersistedIndexes/citiesEpoch(_:)``) and the
/// store holds the history it was saved with (``IndexMark``), then the
/// store's writes to the cities after it applied. Building it takes most of a start otherwise
/// (every alternate name of every city goes through a string column).
enum CitiesIndex {
    /// The loaded index caught up with `snapshot`, or nil when it cannot be used.
    static func load(_ loaded: PersistedIndexes.Loaded?, persisted: PersistedIndexes, snapshot: StoreSnapshot) -> CollectionIndex? {
        guard let loaded, loaded.epoch == persisted.citiesEpoch(snapshot.epoch), loaded.index.schema == CitiesCollection.schema,
            loaded.index.sequence <= snapshot.head, snapshot.historyHeld.contains(citiesCollection)
        else { return nil }
        let index = loaded.index
        let later = snapshot.documents.filter { $0.collection == citiesCollection && $0.sequence > index.sequence }
        let decoder = JSONDecoder()
        var changes: [CollectionChange] = []
        for change in later {
            guard let body = change.body else {
                changes.append(.delete(id: change.id))
                continue
            }
            // The service's own decoding of the same rows refuses the start on such a body: so does this.
            guard let city = try? decoder.decode(Document.self, from: body) else { return nil }
            changes.append(.upsert(CitiesCollection.document(city)))
        }
        if let last = later.last { index.apply(changes, through: last.sequence) }
        index.advance(to: snapshot.head)
        return index
    }
}
