import Base
import Dispatch
import Foundation
import Search

/// What a start builds or loads before it serves: the cities' search index, their collection
/// index, and every stored collection's.
///
/// The three are made side by side (each has serial stretches that leave a core idle), by a
/// `concurrentPerform` whose own loads run more of them: seconds of work that borrow dispatch's
/// workers. The service's start runs it on a thread of its own (``onOwnThread(_:)``), never on
/// the pool Swift's tasks run on (two threads on a 2-core machine), as a schema's re-index does.
struct StartIndexes: Sendable {
    let search: SearchIndex
    let cities: CollectionIndex
    let collections: [ServedCollection]
    /// The collections built from their stored documents (not loaded).
    let rebuilt: [String]
    /// Whether they were made on a start's own thread (tests check a start keeps off the pool).
    let builtOnStartThread: Bool
    /// Whether the saved indexes they took were loaded on a start's own thread (set by the start).
    var loadedOnStartThread = false

    /// Builds or loads the three; `base`: the base data set's cities.
    static func build(
        base: [Document], snapshot: StoreSnapshot, persisted: PersistedIndexes?, loaded: [String: PersistedIndexes.Loaded], maxLiveQueries: Int
    ) throws -> StartIndexes {
        var byID: [String: Document] = [:]
        for document in base { byID[document.id] = document }
        let decoder = JSONDecoder()
        for change in snapshot.documents where change.collection == citiesCollection {
            byID[change.id] = try change.body.map { try DocumentJSON.document($0) ?? decoder.decode(Document.self, from: $0) }
        }
        let cities = Array(byID.values)
        let built = Locked<(SearchIndex?, CollectionIndex?, (collections: [ServedCollection], rebuilt: [String]))>((nil, nil, ([], [])))
        DispatchQueue.concurrentPerform(iterations: 3) { part in
            switch part {
            case 0:
                let index = SearchIndex(documents: cities)
                built.withLock { $0.0 = index }
            case 1:
                // The cities are a collection too (filters, facets, geo), served from the same documents:
                // loaded when saved from the same base data and store, built otherwise.
                let index =
                    persisted.flatMap { CitiesIndex.load(loaded[citiesCollection], persisted: $0, snapshot: snapshot) }
                    ?? CitiesCollection.index(cities, sequence: snapshot.head)
                built.withLock { $0.1 = index }
            default:
                let collections = CollectionLoader.load(snapshot, persisted: loaded, maxLiveQueries: maxLiveQueries)
                built.withLock { $0.2 = collections }
            }
        }
        HeapTrim.release()  // what decoding and building freed (1.3 GiB of a rebuild of 1,000,000)
        return built.withLock {
            StartIndexes(search: $0.0!, cities: $0.1!, collections: $0.2.collections, rebuilt: $0.2.rebuilt, builtOnStartThread: isStartThread)
        }
    }

    /// Runs `work` on a new thread and returns what it returns, leaving the caller's (a task's)
    /// thread free meanwhile.
    static func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await OwnThread.run(name: startThreadName, work)
    }

    /// The name of a start's thread.
    static let startThreadName = "index-load"

    /// Whether the caller runs on a start's own thread.
    static var isStartThread: Bool { OwnThread.currentName == startThreadName }
}
