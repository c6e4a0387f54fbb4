import Base
import Dispatch
import Foundation
import Search

/// A collection this replica serves: its schema, its in-memory index and its live queries.
///
/// A new schema never blocks: writes are checked against it at once, while a new index is
/// built beside the serving one (``rebuild(under:)``); the serving one keeps answering
/// searches and taking writes, which are also kept to be replayed into the new index before
/// it takes over. No write is lost or applied to only one of the two. A document that the
/// serving index's old schema cannot hold (a field whose type changed) stays as it was there,
/// and its write waits for the new index (``served(_:by:)``): never answered before a
/// search finds it.
final class ServedCollection: Sendable {
    /// A write applied while a rebuild runs that the serving index cannot hold, and its number.
    private struct UnservedWrite {
        let document: CollectionDocument
        let sequence: Int64
    }

    private struct State {
        /// The newest schema: what writes are checked against, what `GET /collections` shows.
        var schema: CollectionSchema
        var decoder: CollectionDocumentDecoder
        /// The index serving searches (built under `schema` unless a rebuild is under way).
        var index: CollectionIndex
        /// Writes applied while a rebuild runs, to replay into the new index: (id, body or nil),
        /// and the store's sequence number of the latest.
        var journal: [(id: String, body: [UInt8]?)]?
        var journalSequence: Int64 = 0
        /// Documents written while a rebuild runs that the serving index cannot hold (they do not
        /// fit its old schema), by id, with their sequence numbers, and the writes and reads waiting
        /// for them: served when the new index takes over. Each is the latest write of its id (what
        /// a later write replaces).
        var unserved: [String: UnservedWrite] = [:]
        var unservedWaiters: [AppliedWaiter] = []
        /// Bumped by each rebuild, so an older rebuild that finishes late does not take over.
        var generation = 0
        /// The synonyms and stop words queries apply, as put and compiled (`QueryRules`).
        var synonyms = SynonymSettings()
        var stopWords = StopWordSettings()
        var rules = QueryRules.none
    }

    let name: String
    /// The built-in cities: their schema cannot be replaced nor the collection deleted.
    let isBuiltIn: Bool
    let lookups: CollectionLookups
    private let state: Locked<State>
    /// Called by a rebuild outside every lock before each step of its replay (`swapped` false),
    /// then once the new index serves (true): tests hold a rebuild there.
    private let replayStep: (@Sendable (_ swapped: Bool) -> Void)?
    /// Import batches indexed ahead of their write (``prepare(_:)``), by the sequence number of
    /// their first change, until the write that applies them takes them.
    private let preparedBatches = Locked<[Int64: PreparedBatch]>([:])
    /// Called on the preparing queue before a batch is indexed there: tests hold an import's batch there.
    private let preparingStep: (@Sendable () -> Void)?

    init(
        name: String, schema: CollectionSchema, index: CollectionIndex, isBuiltIn: Bool = false, maxLiveQueries: Int = 1_000,
        replayStep: (@Sendable (_ swapped: Bool) -> Void)? = nil, preparingStep: (@Sendable () -> Void)? = nil
    ) {
        self.name = name
        self.replayStep = replayStep
        self.preparingStep = preparingStep
        self.isBuiltIn = isBuiltIn
        let state = Locked(State(schema: schema, decoder: CollectionDocumentDecoder(schema: schema), index: index))
        self.state = state
        lookups = CollectionLookups(
            current: { state.withLock { ($0.index, $0.rules) } }, maxEntries: maxLiveQueries)
    }

    convenience init(name: String, schema: CollectionSchema, documents: [CollectionDocument]) {
        self.init(name: name, schema: schema, index: CollectionIndex(schema: schema, documents: documents))
    }

    var schema: CollectionSchema { state.withLock { $0.schema } }
    var decoder: CollectionDocumentDecoder { state.withLock { $0.decoder } }
    var index: CollectionIndex { state.withLock { $0.index } }
    /// The schema searches are read against: the serving index's, so that while a new schema's
    /// index is built a filter on a field it adds is refused (400) rather than matching nothing.
    var searchSchema: CollectionSchema { index.schema }
    var synonyms: SynonymSettings { state.withLock { $0.synonyms } }
    var stopWords: StopWordSettings { state.withLock { $0.stopWords } }

    /// Takes new synonyms (nil: none) for every query from now on, live ones included: each live
    /// query is refreshed, and its clients hear of it only if its result changed. No re-index.
    func apply(synonyms: SynonymSettings?) {
        updateRules { $0.synonyms = synonyms ?? SynonymSettings() }
    }

    /// Takes new stop words (nil: none), as ``apply(synonyms:)``.
    func apply(stopWords: StopWordSettings?) {
        updateRules { $0.stopWords = stopWords ?? StopWordSettings() }
    }

    private func updateRules(_ change: (inout State) -> Void) {
        let (rules, schema) = state.withLock { state -> (QueryRules, CollectionSchema) in
            change(&state)
            state.rules = QueryRules(synonyms: state.synonyms, stopWords: state.stopWords)
            return (state.rules, state.index.schema)
        }
        lookups.rulesReplaced(rules, schema: schema)
    }

    /// Whether a new schema's index is being built.
    var isRebuilding: Bool { state.withLock { $0.journal != nil } }

    /// Whether a document is stored under `id` as this replica knows: served, or written while
    /// a rebuild runs and waiting for the new index (``served(_:by:)``).
    func contains(id: String) -> Bool {
        let (index, unserved) = state.withLock { ($0.index, $0.unserved[id] != nil) }
        return unserved || index.contains(id: id)
    }

    /// Waits until the latest writes to `ids` (applied already) are served: at once, unless one
    /// of them did not fit the serving index's old schema during a rebuild; then until the new
    /// index takes over. False if that is not before `deadline`.
    func served(_ ids: [String], by deadline: DispatchTime) async -> Bool {
        await untilServed(by: deadline) { unserved in ids.contains { unserved[$0] != nil } }
    }

    /// Waits until every write to this collection numbered up to `sequence` (applied already) is
    /// served, as ``served(_:by:)`` waits for some ids: what a read asking for `sequence` sees.
    func served(through sequence: Int64, by deadline: DispatchTime) async -> Bool {
        await untilServed(by: deadline) { unserved in unserved.values.contains { $0.sequence <= sequence } }
    }

    /// Whether some write numbered up to `sequence` waits for the new index (``served(through:by:)`` would wait).
    func holdsBack(through sequence: Int64) -> Bool {
        state.withLock { state in state.unserved.values.contains { $0.sequence <= sequence } }
    }

    private func untilServed(
        by deadline: DispatchTime, whileUnserved waits: ([String: UnservedWrite]) -> Bool
    ) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiter = AppliedWaiter(continuation)
            let waiting = state.withLock { state in
                guard !state.unserved.isEmpty, waits(state.unserved) else { return false }
                state.unservedWaiters.append(waiter)
                return true
            }
            guard waiting else { return waiter.finish(true) }
            Self.timers.asyncAfter(deadline: deadline) { waiter.finish(false) }
        }
    }

    private static let timers = DispatchQueue(label: "signalbox.rebuild.timers")

    /// How many writes and reads have waited for the new index to take over since the last
    /// swap, those whose time ran out included (tests watch it).
    var waitingForNewIndex: Int { state.withLock { $0.unservedWaiters.count } }

    /// Marks every write served (the new index took over, or the collection is gone): the
    /// waiting writes are answered. Under the state lock; the caller finishes the waiters after it.
    private static func serveUnserved(_ state: inout State) -> [AppliedWaiter] {
        defer {
            state.unserved = [:]
            state.unservedWaiters = []
        }
        return state.unservedWaiters
    }

    /// Applies a batch of writes to the serving index, then tells the live queries they concern.
    /// `sequence`: the store's sequence number of the last of them (what a persisted copy of the
    /// index is current at; nil for writes that are not stored). Returns what each change
    /// replaced or removed, one per change, in order: what the events carry as the document
    /// before the change.
    @discardableResult
    func apply(_ changes: [CollectionChange], through sequence: Int64? = nil) -> [CollectionChangeOutcome] {
        let (index, schema, unserved) = state.withLock { state -> (CollectionIndex, CollectionSchema, [String: CollectionDocument]) in
            if state.journal != nil {
                for change in changes {
                    switch change {
                    case .upsert(let document): state.journal?.append((document.id, document.body))
                    case .delete(let id): state.journal?.append((id, nil))
                    }
                }
                if let sequence { state.journalSequence = max(state.journalSequence, sequence) }
            }
            return (state.index, state.index.schema, state.unserved.isEmpty ? [:] : state.unserved.mapValues(\.document))
        }
        // Decoded under the newest schema; the serving index may still be under the old one. A
        // document that does not fit it stays as it was there: the new index gets it by the
        // journal, and its write waits for that (`served(_:by:)`). (Compared once: each read of the
        // newest schema takes the lock and copies it.)
        let isOld = schema != self.schema
        var fitted = changes
        // While the serving index leaves some writes out, what it reports replacing is not every
        // change's document before it: taken from what this replica holds instead, before the write.
        var previous: [CollectionDocument?]?
        if isOld {
            let decoder = CollectionDocumentDecoder(schema: schema)
            let refitted = changes.map { change -> CollectionChange? in
                guard case .upsert(let document) = change else { return change }
                return (try? decoder.decode(document.body)).map(CollectionChange.upsert)
            }
            previous = Self.previousDocuments(of: changes, unserved: unserved, index: index)
            // Numbered one after the other up to `sequence` (a run of the applier); 0 when not stored.
            let first = sequence.map { $0 - Int64(changes.count) + 1 }
            noteUnserved(
                zip(changes, refitted).enumerated().map { offset, pair in
                    let (change, fit) = pair
                    guard fit == nil, case .upsert(let document) = change else { return (change.id, nil) }
                    return (change.id, UnservedWrite(document: document, sequence: first.map { $0 + Int64(offset) } ?? 0))
                }, servedBy: index)
            fitted = refitted.compactMap { $0 }
        }
        let outcomes: [CollectionChangeOutcome]
        // Taken in any case: a batch numbered up to `sequence` is applied by this write or never.
        let prepared = takePrepared(for: fitted, through: sequence)
        if !isOld, let (offset, batch) = prepared {
            // The batch's segments are built: its own write only masks and swaps; the writes around
            // it in this run (those numbered just before or after it) are applied as usual.
            let end = offset + batch.count
            var all = offset > 0 ? index.apply(Array(fitted[..<offset])) : []
            all += index.apply(Array(fitted[offset..<end]), through: end == fitted.count ? sequence : nil, prepared: batch)
            if end < fitted.count { all += index.apply(Array(fitted[end...]), through: sequence) }
            outcomes = all
        } else {
            outcomes = index.apply(fitted, through: sequence)
        }
        lookups.refresh(after: outcomes, schema: schema)
        guard let previous else { return outcomes }
        return zip(changes, previous).map(CollectionChangeOutcome.init)
    }

    /// The document each of `changes` replaces or removes, as this replica holds it before them:
    /// an earlier change's of the same batch, else a write the serving index could not hold
    /// (`unserved`), else the serving index's.
    private static func previousDocuments(
        of changes: [CollectionChange], unserved: [String: CollectionDocument], index: CollectionIndex
    ) -> [CollectionDocument?] {
        var latest: [String: CollectionDocument?] = [:]
        return changes.map { change in
            let id = change.id
            let previous: CollectionDocument?
            if let earlier = latest[id] {
                previous = earlier
            } else {
                previous = unserved[id] ?? index.document(id: id)
            }
            if case .upsert(let document) = change { latest[id] = .some(document) } else { latest[id] = .some(nil) }
            return previous
        }
    }

    /// Applies a batch of writes whose outcomes nobody reads (the cities': their events come from
    /// the search index) in batches: the serving index holds them until its next read, or until it
    /// holds `maxDeferredChanges` (``CollectionIndex/applyDeferred(_:through:)``), so a search still
    /// finds every write answered before it began. Applied at once, as ``apply(_:through:)``, when a
    /// live query must hear of them, while a rebuild runs, or when an import's batch waits prepared.
    func applyDeferred(_ changes: [CollectionChange], through sequence: Int64? = nil) {
        let index = state.withLock { state in state.journal == nil && state.index.schema == state.schema ? state.index : nil }
        guard let index, lookups.count == 0, preparedBatches.withLock({ $0.isEmpty }) else {
            apply(changes, through: sequence)
            return
        }
        index.applyDeferred(changes, through: sequence)
        // A live query made since the count was read either computed its first result after the
        // changes were held (the read applied them) or is refreshed by their outcomes here.
        if lookups.count > 0 { lookups.refresh(after: index.catchUp(reportingPrevious: true), schema: index.schema) }
    }

    /// Records which of the writes just applied to `index` (the old schema's, while a rebuild
    /// runs) it could not hold: their documents (nil for one it holds). Nothing if the new index
    /// took over meanwhile: it has them all.
    private func noteUnserved(_ writes: [(id: String, unfit: UnservedWrite?)], servedBy index: CollectionIndex) {
        state.withLock { state in
            guard state.index === index, state.journal != nil else { return }
            for (id, unfit) in writes { state.unserved[id] = unfit }
        }
    }

    // MARK: Import batches indexed ahead

    /// Indexes `documents`, an import's batch about to be committed, on the serving index, off
    /// the pool (on a queue of its own: the build takes long); nil for a batch below the index's
    /// `recentSegmentDocuments` (its write folds it into its recent segment, a build of little cost).
    func prepare(_ documents: [CollectionDocument]) async -> PreparedBatch? {
        let index = self.index
        guard documents.count >= index.configuration.recentSegmentDocuments else { return nil }
        let step = preparingStep
        return await withCheckedContinuation { (prepared: CheckedContinuation<PreparedBatch?, Never>) in
            Self.preparing.async {
                step?()
                prepared.resume(returning: index.prepare(documents))
            }
        }
    }

    /// Where import batches are indexed ahead of their write, one at a time.
    private static let preparing = DispatchQueue(label: "signalbox.import.prepare")

    /// Hands `batch` to the write that applies its changes, numbered from `first` (once committed).
    func expect(_ batch: PreparedBatch, from first: Int64) {
        preparedBatches.withLock { $0[first] = batch }
    }

    /// The prepared batch among `changes` (the run ending at `sequence`, numbered one after the
    /// other) and where it starts; nil when none, or when the changes are not its documents. Every
    /// batch numbered up to `sequence` is taken: applied here or never.
    private func takePrepared(for changes: [CollectionChange], through sequence: Int64?) -> (offset: Int, batch: PreparedBatch)? {
        guard let sequence else { return nil }
        let first = sequence - Int64(changes.count) + 1
        let found = preparedBatches.withLock { batches -> (Int64, PreparedBatch)? in
            var found: (Int64, PreparedBatch)?
            for start in Array(batches.keys) where start <= sequence {
                if start >= first, let batch = batches[start] { found = (start, batch) }
                batches[start] = nil
            }
            return found
        }
        guard let (start, batch) = found else { return nil }
        let offset = Int(start - first)
        guard offset + batch.count <= changes.count, batch.covers(changes[offset..<(offset + batch.count)]) else { return nil }
        return (offset, batch)
    }

    /// Takes `schema` for every write from now on and builds its index in the background
    /// from the documents served now; the new index takes over once it has every write.
    /// `sequence`: the store's sequence number of the schema's put.
    func rebuild(under schema: CollectionSchema, at sequence: Int64 = 0) {
        // The journal starts with the snapshot read below: writes after this point are replayed.
        let (serving, generation) = state.withLock { state -> (CollectionIndex, Int) in
            state.schema = schema
            state.decoder = CollectionDocumentDecoder(schema: schema)
            // A rebuild under way is overtaken, but its journal is kept: the index read below
            // lacks the writes it could not hold (`unserved`), which only the journal has.
            state.journal = state.journal ?? []
            state.journalSequence = sequence
            state.generation += 1
            return (state.index, state.generation)
        }
        // On a thread of its own, not on `DispatchQueue.global()`: that is the pool Swift's tasks
        // run on (as wide as the cores), where every write's answer and group commit runs. A
        // rebuild there, with the worker its `concurrentPerform`s borrow, held the whole pool for
        // as long as one of its parts took (a write waited 30 s at 1,000,000 documents); from
        // here they borrow at most all workers but one.
        OwnThread.start(name: Self.rebuildThreadName) { [self] in
            // Read outside the lock (writes go on meanwhile; the journal has them).
            let (documents, servedSequence) = serving.allDocumentsWithSequence()
            let decoder = CollectionDocumentDecoder(schema: schema)
            let rebuilt = CollectionIndex(
                schema: schema, documents: documents.compactMap { try? decoder.decode($0.body) }, sequence: max(sequence, servedSequence))
            guard replay(into: rebuilt, decoder: decoder, generation: generation) else {
                rebuilt.retire()  // a newer rebuild took over, or the collection was deleted: it merges no more
                return
            }
            lookups.indexReplaced(schema: schema)
            HeapTrim.release()  // the documents read back and the build's scratch
        }
    }

    /// The name of the thread a rebuild runs on.
    static let rebuildThreadName = "index-rebuild"

    /// Whether the caller runs on a rebuild's own thread (tests check a rebuild is off the pool).
    static var isRebuildThread: Bool { OwnThread.currentName == rebuildThreadName }

    /// Most journaled writes replayed under the state lock, at the swap: the rest are replayed
    /// in steps outside it, so that writes and searches never wait for a long replay.
    static let maxChangesReplayedUnderLock = 256

    /// Replays the journal into `rebuilt` and swaps it in; false if a newer rebuild took over.
    /// Each step takes the journal's new writes under the lock and applies them outside it;
    /// once few remain, the last ones and the swap are done under the lock (no write lands
    /// between the replay and the swap).
    private func replay(into rebuilt: CollectionIndex, decoder: CollectionDocumentDecoder, generation: Int) -> Bool {
        func changes(_ journal: ArraySlice<(id: String, body: [UInt8]?)>) -> [CollectionChange] {
            journal.map { id, body in body.flatMap { try? decoder.decode($0) }.map(CollectionChange.upsert) ?? .delete(id: id) }
        }
        var replayed = 0
        var replaced: CollectionIndex?
        var served: [AppliedWaiter] = []
        while true {
            replayStep?(false)
            let step = state.withLock { state -> ArraySlice<(id: String, body: [UInt8]?)>? in
                guard state.generation == generation, let journal = state.journal else { return nil }
                guard journal.count - replayed > Self.maxChangesReplayedUnderLock else {
                    rebuilt.apply(changes(journal[replayed...]), through: state.journalSequence)
                    rebuilt.advance(to: state.journalSequence)
                    replaced = state.index
                    state.index = rebuilt
                    state.journal = nil
                    served = Self.serveUnserved(&state)
                    return []
                }
                return journal[replayed...]
            }
            guard let step else { return false }
            if step.isEmpty {
                for waiter in served { waiter.finish(true) }
                replaced?.retire()  // no longer served: its merges stop
                replayStep?(true)
                return true
            }
            rebuilt.apply(changes(step))
            replayed += step.count
        }
    }

    /// Stops the work of a collection no longer served (deleted): its index merges no more, and
    /// a rebuild under way does not take over (its index merges no more either).
    func retire() {
        let (index, served) = state.withLock { state -> (CollectionIndex, [AppliedWaiter]) in
            state.generation += 1
            state.journal = nil
            return (state.index, Self.serveUnserved(&state))
        }
        for waiter in served { waiter.finish(true) }  // the collection and its documents are gone
        index.retire()
    }

    /// `{"name", "documents", "id", "fields", "rank", "public"}`: the collection as
    /// `GET /collections/{name}` shows it.
    func summaryJSON() -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.raw("{")
        json.key("name")
        json.string(name)
        json.raw(",")
        json.key("documents")
        json.raw(Array(String(index.count).utf8))
        json.raw(",")
        var schemaJSON = schema.encodedJSON()
        schemaJSON.removeFirst()  // its opening brace: the schema's members follow ours
        json.raw(schemaJSON)
        return json.bytes
    }
}

/// The collections this replica serves, by name; the cities among them.
final class CollectionCatalog: Sendable {
    private let collections = Locked<[String: ServedCollection]>([:])
    /// Public collections deleted since (and not made again): their events, the deletion's
    /// included, stay readable by those who could read them, after the schema is gone.
    private let deletedPublic = Locked<Set<String>>([])

    /// Whether `name` is public now, or was when it was deleted.
    func isPublic(_ name: String) -> Bool {
        named(name).map { $0.schema.isPublic } ?? deletedPublic.withLock { $0.contains(name) }
    }

    func named(_ name: String) -> ServedCollection? {
        collections.withLock { $0[name] }
    }

    /// Every collection, by name.
    var all: [ServedCollection] {
        collections.withLock { $0.values.sorted { $0.name < $1.name } }
    }

    var count: Int { collections.withLock { $0.count } }

    /// Serves `collection` under its name, in place of any before it.
    func serve(_ collection: ServedCollection) {
        _ = deletedPublic.withLock { $0.remove(collection.name) }
        collections.withLock { $0[collection.name] = collection }
    }

    /// Creates the collection `name` (empty) or rebuilds the existing one under `schema`;
    /// `sequence`: the store's sequence number of the schema's put.
    func put(_ name: String, schema: CollectionSchema, at sequence: Int64 = 0) {
        if let existing = named(name) {
            existing.rebuild(under: schema, at: sequence)
        } else {
            serve(ServedCollection(name: name, schema: schema, index: CollectionIndex(schema: schema, sequence: sequence)))
        }
    }

    /// Stops serving the collection named `name` (and retires it); returns it.
    @discardableResult
    func remove(_ name: String) -> ServedCollection? {
        let removed = collections.withLock { $0.removeValue(forKey: name) }
        removed?.retire()
        if let removed, removed.schema.isPublic { _ = deletedPublic.withLock { $0.insert(name) } }
        return removed
    }
}
