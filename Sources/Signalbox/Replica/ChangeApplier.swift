import Base
import DequeModule
import Dispatch
import Foundation
import Rx
import Search

/// Applies committed changes to this replica (index, lookup cache, change feed) in
/// sequence order, each exactly once, whichever way they arrive: from this replica's
/// own writes (SQLite or PostgreSQL: every write comes through here before it is
/// answered), or from the change log another replica's commits went to.
///
/// A change that arrives before the one it follows waits until the gap is filled;
/// ``onGap`` asks the follower to read the log then.
final class ChangeApplier: Sendable {
    /// One committed change, with its document decoded if the caller had it. A class: a change
    /// is handed from the store's commit to the pending changes, the run, the index write and
    /// the event history, and a struct of its six references was retained six times a copy
    /// (about a twentieth of an import's CPU went to those copies and their releases).
    final class Change: Sendable {
        let sequence: Int64
        /// The collection it belongs to (`cities` for the built-in one).
        let collection: String
        /// A document's write, or a collection's schema put or deleted.
        let kind: StoredChangeKind
        let id: String
        /// A city's new document; nil for a delete and for other collections.
        let document: Document?
        /// Another collection's new document, when the writer had it decoded (this replica's
        /// own writes); decoded from `body` by the collection's schema otherwise.
        let record: CollectionDocument?
        /// The document's JSON as the store keeps it, reused for the event's bytes; for a
        /// collection's change, its schema's JSON (nil: deleted).
        let body: Data?

        init(
            sequence: Int64, collection: String = citiesCollection, kind: StoredChangeKind = .document, id: String,
            document: Document? = nil, record: CollectionDocument? = nil, body: Data?
        ) {
            self.sequence = sequence
            self.collection = collection
            self.kind = kind
            self.id = id
            self.document = document
            self.record = record
            self.body = body
        }

        /// A change read back from the store, a city's document decoded.
        convenience init(_ stored: StoredChange) throws {
            let isCity = stored.collection == citiesCollection && stored.kind == .document
            // The plain reader first: JSONDecoder cost most of a replica's work on another replica's write.
            let document = try stored.body.flatMap { body in
                isCity ? try DocumentJSON.document(body) ?? JSONDecoder().decode(Document.self, from: body) : nil
            }
            self.init(
                sequence: stored.sequence, collection: stored.collection, kind: stored.kind, id: stored.id, document: document,
                body: stored.body)
        }

        /// Whether this is a write to a document of a collection other than the cities.
        var isCollectionDocument: Bool { kind == .document && collection != citiesCollection && !isInternal }

        /// Whether this writes a stored key (``KeyRegistry``): applied, never published.
        var isKey: Bool { collection == KeyRegistry.collection }

        /// Whether this writes a collection's synonyms or stop words (``TextSettingsDocuments``): applied, never published.
        var isTextSettings: Bool { collection == TextSettingsDocuments.collection }

        /// A change of the service's own bookkeeping, never an event.
        var isInternal: Bool { isKey || isTextSettings }
    }

    private struct State {
        var applied: Int64
        var pending: [Int64: Change] = [:]
        /// A drain is queued and has not yet taken the pending changes: changes offered
        /// meanwhile wait for it rather than queue one drain each, so the changes of many
        /// writers that arrive while one run is applied go together into the next (one index write).
        var drainQueued = false
        /// The latest change applied in full (searchable and published): ``applied``'s value.
        var served: Int64
        /// Writes waiting for their change to be served, by sequence number (``apply(_:waitingAtMost:)``).
        var waiters: [Int64: [AppliedWaiter]] = [:]
        /// The newest changes applied, oldest first, for ``HistoryCheck`` after a failover.
        var recent: Deque<HistoryCheck.Applied> = []
        /// The server whose history this replica holds, once checked (``confirm(server:)``): a saved index's ``IndexMark``.
        var server: String?
        /// How many times this replica went back (``rewind(to:corrections:history:)``).
        var rewinds = 0
        /// The counts of created and updated documents asked for (an import's batches), until served.
        var tallies: [WriteTally] = []
    }

    /// How many applied changes are kept for ``HistoryCheck`` (ids, and bodies shared with the
    /// changes, to be digested if compared: at most a few MiB of bodies):
    /// a failover that lost more changes than this (and than the log's `events.history`) makes
    /// a replica that applied them start over instead of going back.
    static let checkedChanges = 16_384

    private let index: SearchIndex
    private let lookups: SearchLookups
    private let collections: CollectionCatalog
    private let feed: any ChangePublisher
    private let metrics: ServiceMetrics
    /// Stored keys are applied here, never published (no event shows a key).
    private let keys: KeyRegistry
    private let state: Locked<State>
    private let queue = DispatchQueue(label: "signalbox.apply")
    private let gapHandler = Locked<(@Sendable () -> Void)?>(nil)
    /// The sequence number of the latest change this replica serves.
    let applied: BehaviorRelay<Int64>

    init(
        index: SearchIndex, lookups: SearchLookups, collections: CollectionCatalog = CollectionCatalog(), feed: any ChangePublisher,
        metrics: ServiceMetrics, applied: Int64, keys: KeyRegistry = KeyRegistry(), recentChanges: [StoredChange] = [],
        server: String? = nil
    ) {
        self.keys = keys
        self.index = index
        self.lookups = lookups
        self.collections = collections
        self.feed = feed
        self.metrics = metrics
        // The store's newest changes read with the snapshot it starts from are the history it holds.
        state = Locked(State(
            applied: applied, served: applied,
            recent: Deque(recentChanges.suffix(Self.checkedChanges).filter { $0.sequence <= applied }.map(HistoryCheck.Applied.init)),
            server: server))
        self.applied = BehaviorRelay(value: applied)
    }

    /// Called (on the apply queue) when changes wait behind a missing one.
    func onGap(_ handler: @escaping @Sendable () -> Void) {
        gapHandler.withLock { $0 = handler }
    }

    /// Queues `changes` and applies every one that is next in order. With no changes, applies
    /// those ``stage(_:)`` left waiting, if the next one is among them.
    func offer(_ changes: [Change]) {
        let queueDrain = state.withLock { state in
            // By index: a `Change` taken by `for in` is one more copy (a retain of each of its references).
            for c in changes.indices where changes[c].sequence > state.applied { state.pending[changes[c].sequence] = changes[c] }
            // Nothing new offered: a drain only for staged changes that are next, not one that would report a gap again.
            let ready = changes.isEmpty ? state.pending[state.applied + 1] != nil : !state.pending.isEmpty
            guard ready, !state.drainQueued else { return false }
            state.drainQueued = true
            return true
        }
        guard queueDrain else { return }
        queue.async { [self] in drain() }
    }

    /// Counts the changes `tally` is for as they are applied, whoever offers them (an open
    /// tally: every change applied until it is closed, kept by number).
    func count(_ tally: WriteTally) {
        state.withLock { state in
            if !tally.isDone(servedThrough: state.applied) { state.tallies.append(tally) }
        }
    }

    /// Keeps `change`, a write of this replica's that has just become durable, for the next drain
    /// without queueing one: its commit group's other writes are staged right after it, and the
    /// first of their writers to call ``apply(_:waitingAtMost:)`` starts one drain for the whole
    /// group (one index write, not one per writer as each wakes). A staged change whose writer
    /// never asks goes with the next drain (the follower's next read offers one).
    func stage(_ change: Change) {
        state.withLock { state in
            if change.sequence > state.applied { state.pending[change.sequence] = change }
        }
    }

    /// The latest sequence number through which this replica holds every change: applied, or
    /// waiting in order to be (its own writes are staged as soon as they are durable). A
    /// notification of a head up to it brings nothing to read.
    var heldThrough: Int64 {
        state.withLock { state in
            var through = state.applied
            while state.pending[through + 1] != nil { through += 1 }
            return through
        }
    }

    /// ``heldThrough`` and the later changes this replica holds (at most `limit`, the lowest),
    /// waiting behind a missing one: a read of the log starts after the one and leaves out the
    /// others (this replica's own writes, which it would otherwise read back).
    func held(limit: Int) -> (through: Int64, later: [Int64]) {
        state.withLock { state in
            var through = state.applied
            while state.pending[through + 1] != nil { through += 1 }
            let later = state.pending.keys.filter { $0 > through }.sorted().prefix(limit)
            return (through, Array(later))
        }
    }

    /// The changes of `changes` this replica has neither applied nor been offered: the follower
    /// decodes only those (a replica's own writes come back in the log it reads).
    func unseen(_ changes: [StoredChange]) -> [StoredChange] {
        state.withLock { state in changes.filter { $0.sequence > state.applied && state.pending[$0.sequence] == nil } }
    }

    /// Jumps to `head` with the latest version of each document changed since the applied
    /// one, for a replica whose missed changes are no longer all in the log: no events for
    /// them, so ``ChangeFeed`` resets its clients; the log's newest changes (`recentChanges`,
    /// ending at `head`) become its history, so later resumes within the log are served.
    func catchUp(to head: Int64, documents: [Change], recentChanges: [Change] = []) {
        queue.async { [self] in
            let from = state.withLock { $0.applied }
            guard head > from else { return }
            let documents = documents.filter { $0.sequence > from }
            apply(documents, publish: false, record: false)
            // What this replica holds now, for HistoryCheck and IndexMark: the documents' latest
            // writes (sparse) and the log's newest changes, ending at `head`, in order.
            var held: [Int64: Change] = [:]
            for change in documents + recentChanges where change.sequence > from && change.sequence <= head { held[change.sequence] = change }
            let recorded = held.keys.sorted().map { HistoryCheck.Applied(held[$0]!) }
            state.withLock { state in
                state.recent.append(contentsOf: recorded)
                if state.recent.count > Self.checkedChanges { state.recent.removeFirst(state.recent.count - Self.checkedChanges) }
                state.applied = head
                state.pending = state.pending.filter { $0.key > head }
            }
            feed.restart(at: head, history: recentChanges.filter { !$0.isInternal }.map(Self.event))
            serve(head)
            drain()
        }
    }

    /// The newest changes applied (at most ``checkedChanges``), oldest first.
    func recentlyApplied() -> [HistoryCheck.Applied] {
        state.withLock { Array($0.recent) }
    }

    /// Records that the history this replica holds is the one `server` answers with (checked
    /// against it by ``HistoryCheck``): the server of the marks of the indexes saved from now on.
    func confirm(server: String) {
        state.withLock { $0.server = server }
    }

    /// Goes back to `sequence` after a failover whose new primary lacks the changes this replica
    /// applied after it (``HistoryCheck``): `corrections` put each document those changes touched
    /// back as the store holds it now, without events; the feed's clients get a reset, its history
    /// becomes the store's log up to `sequence` (`history`), and the changes after `sequence` are
    /// then applied from the store's log as usual. Returns once done.
    func rewind(to sequence: Int64, corrections: [Change], history: [Change]) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                apply(corrections, publish: false, record: false)
                state.withLock { state in
                    state.rewinds += 1
                    state.applied = sequence
                    state.pending.removeAll()
                    while let last = state.recent.last, last.sequence > sequence { state.recent.removeLast() }
                }
                // Keys, synonyms and stop words are never events, after a rewind either.
                feed.restart(at: sequence, history: history.filter { !$0.isInternal }.map(Self.event))
                serve(sequence)
                done.resume()
            }
        }
    }

    /// Applies `change`, a write this replica has just committed, and returns once it is applied
    /// (searchable, and sent to `/events`), or once `limit` has passed: on PostgreSQL a change
    /// may wait behind one another replica committed first, which the follower has yet to read.
    /// Returns whether it was applied in time.
    @discardableResult
    func apply(_ change: Change, waitingAtMost limit: RxTimeInterval) async -> Bool {
        // A waiter resumed by the drain that serves the change (or by its timer): not an Rx
        // subscription to ``applied`` per write, which every served run would visit, each write's.
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiter = AppliedWaiter(continuation)
            let served = state.withLock { state in
                guard state.served < change.sequence else { return true }
                state.waiters[change.sequence, default: []].append(waiter)
                return false
            }
            if served {
                waiter.finish(true)
                return
            }
            offer([change])
            Self.deadlines.add(waiter, deadline: .now() + limit)
        }
    }

    /// One timer for every write's wait, not one each.
    private static let deadlines = WaitDeadlines(label: "signalbox.apply.timers")

    /// Records that every change through `sequence` is served: ``applied`` takes it, and the
    /// writes waiting for one of them are answered.
    private func serve(_ sequence: Int64) {
        let ready = state.withLock { state -> [AppliedWaiter] in
            state.served = sequence
            if !state.tallies.isEmpty { state.tallies.removeAll { $0.isDone(servedThrough: sequence) } }
            guard !state.waiters.isEmpty else { return [] }
            var ready: [AppliedWaiter] = []
            for (waited, waiters) in state.waiters where waited <= sequence {
                ready += waiters
                state.waiters[waited] = nil
            }
            return ready
        }
        applied.accept(sequence)
        for waiter in ready { waiter.finish(true) }
    }

    /// Completes once this replica has applied `sequence`; fails with ``NotAppliedInTime`` after `limit`.
    func applied(atLeast sequence: Int64, within limit: RxTimeInterval) -> Completable {
        if applied.value >= sequence { return .empty() }
        return applied.asObservable()
            .filter { $0 >= sequence }
            .take(1)
            .timeout(limit, scheduler: Self.timers)
            .catch { _ in .error(NotAppliedInTime(sequence: sequence, limit: limit)) }
            .asCompletable()
    }

    private static let timers = ConcurrentDispatchQueueScheduler(qos: .default)

    /// Applies what is next in order, in runs (an import's batch is one index write); on the apply queue.
    private func drain() {
        while true {
            let run = state.withLock { state -> [Change] in
                state.drainQueued = false
                var run: [Change] = []
                while let change = state.pending.removeValue(forKey: state.applied + 1) {
                    state.applied = change.sequence
                    run.append(change)
                }
                return run
            }
            guard let last = run.last else { break }
            apply(run, publish: true)
            serve(last.sequence)
        }
        if state.withLock({ !$0.pending.isEmpty }) { gapHandler.withLock { $0 }?() }
    }

    /// The event of a change read back from the log (for the history: no previous version needed).
    static func event(_ change: Change) -> ChangeEvent {
        let kind: ChangeEvent.Kind =
            switch change.kind {
            case .document: change.body == nil ? .deleted : .upserted
            case .schema: change.body == nil ? .collectionDeleted : .collectionReplaced
            }
        return event(change, kind: kind, previous: nil)
    }

    private static func event(_ change: Change, kind: ChangeEvent.Kind, previous: Document?) -> ChangeEvent {
        ChangeEvent(
            sequence: change.sequence, kind: kind, collection: change.collection, documentID: change.id, document: change.document,
            previous: previous, storedBody: change.body, record: change.record)
    }

    /// Applies a run of consecutive changes in order: the writes to one collection's documents
    /// that follow each other as one batch for its index (an import's batch, or the changes of
    /// many writers that arrived together: one rebuild of the index's delta, not one per change),
    /// schema changes one by one. `record`: kept for ``HistoryCheck`` (not a rewind's corrections).
    private func apply(_ run: [Change], publish: Bool, record: Bool = true) {
        guard !run.isEmpty else { return }
        if record {
            // Only the newest are kept.
            let applied = run.suffix(Self.checkedChanges).map(HistoryCheck.Applied.init)
            state.withLock { state in
                state.recent.append(contentsOf: applied)
                if state.recent.count > Self.checkedChanges { state.recent.removeFirst(state.recent.count - Self.checkedChanges) }
            }
        }
        var start = run.startIndex
        while start < run.endIndex {
            let first = run[start]
            var end = start + 1
            if first.isKey {
                keys.apply(id: first.id, body: first.body)
            } else if first.isTextSettings {
                TextSettingsDocuments.apply(id: first.id, body: first.body, to: collections)
            } else if first.kind == .schema {
                applySchema(first, publish: publish)
            } else {
                end = run.withUnsafeBufferPointer { changes in
                    var next = end  // read in place: `run[end]` copied each change whole
                    while next < changes.endIndex, changes[next].kind == .document, changes[next].collection == first.collection { next += 1 }
                    return next
                }
                if first.collection == citiesCollection {
                    applyCities(run[start..<end], publish: publish)
                } else {
                    // An import's batch is the whole run: no copy of its changes.
                    applyDocuments(start == run.startIndex && end == run.endIndex ? run : Array(run[start..<end]), publish: publish)
                }
            }
            start = end
        }
    }

    /// Writes to a collection's documents, as one batch for its index. Each published event
    /// carries the document before and after the change, so a tenant's view of `/events` can
    /// tell a document that leaves its filter (``EventView``): the one before is what the
    /// collection reports each change replaced (an earlier change's of the same run, or the one it held).
    /// The events are made only when something reads them (``PendingEvents``).
    private func applyDocuments(_ changes: [Change], publish: Bool) {
        var records: [CollectionDocument?] = []
        var outcomes: [CollectionChangeOutcome] = []
        // Read in place (`for in`, `map(\.sequence)` and `changes[c]` in a closure copied each
        // `Change` whole: a retain of each of its references).
        let sequences = changes.withUnsafeBufferPointer { changes in changes.map { $0.sequence } }
        if let collection = collections.named(changes[0].collection) {
            let decoder = collection.decoder
            let batch = changes.withUnsafeBufferPointer { changes -> [CollectionChange] in
                records.reserveCapacity(changes.count)
                var batch: [CollectionChange] = []
                batch.reserveCapacity(changes.count)
                for c in changes.indices {
                    // Stored under a schema this one no longer takes: kept in the store, not searchable.
                    let record = changes[c].body == nil ? nil : changes[c].record ?? changes[c].body.flatMap { try? decoder.decode(Array($0)) }
                    records.append(record)
                    batch.append(record.map(CollectionChange.upsert) ?? .delete(id: changes[c].id))
                }
                return batch
            }
            outcomes = collection.apply(batch, through: sequences.last)
        }
        if publish { count(sequences, outcomes) }
        guard publish else { return }
        // Only the replaced documents are kept for the events, not the outcomes' changes.
        let (decoded, replaced) = (records, outcomes.map { $0.previous })
        feed.publish(PendingEvents(sequences: sequences) { offset in
            let change = changes[offset]
            return ChangeEvent(
                sequence: change.sequence, kind: change.body == nil ? .deleted : .upserted, collection: change.collection,
                documentID: change.id, document: nil, previous: nil, storedBody: change.body,
                record: offset < decoded.count ? decoded[offset] : nil, previousRecord: offset < replaced.count ? replaced[offset] : nil)
        })
    }

    /// Counts `changes` for the tallies that asked for them: each outcome tells whether its
    /// change replaced a document (the look-up the index write made to mask it).
    private func count(_ sequences: [Int64], _ outcomes: [CollectionChangeOutcome]) {
        let tallies = state.withLock { $0.tallies }
        guard !tallies.isEmpty, let first = sequences.first, let last = sequences.last else { return }
        for tally in tallies where tally.wants(min(first, last)...max(first, last)) {
            tally.count(sequences) { c in c < outcomes.count && outcomes[c].previous != nil }
        }
    }

    /// A collection created, its schema replaced, or the collection deleted.
    private func applySchema(_ change: Change, publish: Bool) {
        let existed = collections.named(change.collection) != nil
        let kind: ChangeEvent.Kind
        if let body = change.body, let schema = try? CollectionSchema.decode(json: Array(body)) {
            kind = existed ? .collectionReplaced : .collectionCreated
            collections.put(change.collection, schema: schema, at: change.sequence)
        } else {
            kind = .collectionDeleted
            collections.remove(change.collection)
        }
        if publish { feed.publish(Self.event(change, kind: kind, previous: nil)) }
    }

    /// Writes to the cities: the search index takes them as one write, then the lookup cache
    /// hears of each change and, with `publish`, the feed gets the run, in order. The events are
    /// made only when something reads them (``PendingEvents``), as a collection's are: a replica
    /// with no `/events` client made each city's event (its JSON, its frame) for nobody, about
    /// 10,000 instructions a change on every replica.
    private func applyCities(_ changes: ArraySlice<Change>, publish: Bool) {
        // Each change's previous version: the index's, or an earlier change's of the same run.
        var latest: [String: Document?] = [:]
        var previous: [Document?] = []
        previous.reserveCapacity(changes.count)
        for change in changes {
            previous.append(latest[change.id] ?? index.document(id: change.id))
            latest[change.id] = .some(change.document)
        }
        index.apply(changes.map { (id: $0.id, document: $0.document) })
        if let cities = collections.named(citiesCollection) {
            // Applied in batches, before the next read of the collection: its outcomes are not
            // needed here (the events' previous versions are the search index's).
            cities.applyDeferred(
                changes.map { change in change.document.map { .upsert(CitiesCollection.document($0)) } ?? .delete(id: change.id) },
                through: changes.last?.sequence)
        }
        lookups.apply(changes.indices.map { (document: changes[$0].document, previous: previous[$0 - changes.startIndex]) })
        if publish {
            let run = Array(changes)
            let replaced = previous
            feed.publish(PendingEvents(sequences: run.map(\.sequence)) { offset in
                Self.event(run[offset], kind: run[offset].document == nil ? .deleted : .upserted, previous: replaced[offset])
            })
        }
        metrics.documentCount(index.count)
    }
}

/// A replica did not apply the change a request waits for in time (503 with `Retry-After`).
struct NotAppliedInTime: Error, Sendable {
    let sequence: Int64
    let limit: RxTimeInterval
    /// The change is the request's own write, durable already (``ChangeApplier/applyWrite(_:waitingAtMost:)``).
    var isDurableWrite = false
    /// The change is applied, but a schema change's new index, the first that can hold its
    /// document, did not take over in time (``ServedCollection/served(_:by:)``).
    var waitsForRebuild = false

    var waitedDescription: String {
        if case .milliseconds(let milliseconds) = limit { return "\(Double(milliseconds) / 1000) s" }
        return "\(limit)"
    }
}

extension ChangeApplier: IndexMarking {
    func markPosition() -> IndexMark.Position {
        state.withLock { IndexMark.Position(server: $0.server, rewinds: $0.rewinds, served: $0.served) }
    }

    func mark(at sequence: Int64, since position: IndexMark.Position) -> IndexMark? {
        state.withLock { state in
            guard state.rewinds == position.rewinds else { return nil }
            guard sequence > 0 else { return IndexMark(sequence: 0, server: position.server, changes: []) }
            var changes: [IndexMark.Change] = []
            for change in state.recent.reversed() where change.sequence <= sequence {
                changes.append(IndexMark.Change(sequence: change.sequence, digest: change.digest))
                if changes.count == IndexMark.keptChanges { break }
            }
            guard changes.first?.sequence == sequence else { return nil }
            return IndexMark(sequence: sequence, server: position.server, changes: changes.reversed())
        }
    }
}
