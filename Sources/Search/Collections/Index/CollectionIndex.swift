import Base
import Dispatch
import Foundation

/// The in-memory index of one collection, thread-safe.
///
/// Same concurrency design as `SearchIndex`: a query takes the current immutable snapshot under a
/// very short lock and never waits for a writer; writes are serialized. The snapshot is a list of
/// immutable segments, each with a mask of the documents replaced or deleted since it was built.
/// A write (`apply`, a batch) masks the old versions and indexes only its new documents: into
/// the *recent* segment (the segments below `recentSegmentDocuments` are merged with them).
/// Larger segments are merged `mergeFanIn` at a time when that many are of one size class
/// (×`mergeFanIn`), and a segment mostly deleted is rewritten, in the background
/// (`CollectionIndex+Merges`): writes and searches go on while a merge builds. So a document is
/// re-indexed about log₄(n / 1,024) times over its life, never the whole index per write.
/// A writer that reads no outcomes can hand its writes over to be applied in batches, before the
/// next read (`CollectionIndex+Deferred`): a query then waits for that batch, and only then.
public final class CollectionIndex: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Segments with fewer live documents than this are merged into each write's new segment. Default 1,024.
        public var recentSegmentDocuments = 1_024
        /// Larger segments of one size class are merged when there are this many. Default 4.
        public var mergeFanIn = 4
        /// A segment with a larger share of its documents deleted is rewritten. Default 0.5.
        public var maxDeletedFraction = 0.5
        /// ``applyDeferred(_:through:)`` holds at most this many changes before it applies them.
        /// Default 256: a run of that many costs one segment build instead of one per write.
        public var maxDeferredChanges = 256
        /// How a text query applies its filter (tests force each way; `CollectionSearch`).
        var textFilter = TextFilterStrategy.byCost

        public init() {}
    }

    public let schema: CollectionSchema
    public let configuration: Configuration
    let layout: SchemaLayout
    let decoder: CollectionDocumentDecoder
    let current: Locked<CollectionSnapshot>
    /// One write at a time, and what the background merges hold. Not a `Locked<Void>`:
    /// ThreadSanitizer reported a Swift access race between two `withLock` calls of one such
    /// lock, one of them holding it (`ChangeTests.concurrentReadersAndWriters`, 26 Nov); a
    /// zero-sized state has no bytes of its own, and its access most likely aliased the lock
    /// object's first bytes.
    let writer = Locked(WriterState())
    /// Entered while a merge thread runs: ``waitForMerges()`` waits on it.
    let mergesRunning = DispatchGroup()
    /// Called on the merge thread once a merged segment is built, before it is swapped in
    /// (tests hold a merge there and write meanwhile).
    let mergeBuilt: (@Sendable () -> Void)?
    private let scratches = ScratchPool()
    /// Changes taken by ``applyDeferred(_:through:)`` and not yet applied: removed only once the
    /// snapshot that has them is published (under the writer lock).
    let deferred = Locked(DeferredChanges())

    /// Indexes `documents`; for a repeated id the last one wins. Tokenizing runs on all cores.
    /// `sequence`: the store's sequence number these documents are current at (see ``sequence``).
    public convenience init(
        schema: CollectionSchema, documents: [CollectionDocument] = [], sequence: Int64 = 0, configuration: Configuration = Configuration()
    ) {
        self.init(schema: schema, documents: documents, sequence: sequence, configuration: configuration, mergeBuilt: nil)
    }

    /// `mergeBuilt`: see ``mergeBuilt``.
    init(
        schema: CollectionSchema, documents: [CollectionDocument], sequence: Int64, configuration: Configuration,
        mergeBuilt: (@Sendable () -> Void)?
    ) {
        self.mergeBuilt = mergeBuilt
        self.schema = schema
        self.configuration = configuration
        layout = SchemaLayout(schema)
        decoder = CollectionDocumentDecoder(schema: schema, limits: .unlimited)
        var last = [String: Int](minimumCapacity: documents.count)
        for (index, document) in documents.enumerated() { last[document.id] = index }
        let unique = last.count == documents.count
            ? documents : documents.enumerated().filter { last[$0.element.id] == $0.offset }.map(\.element)
        var parts: [CollectionSnapshot.Part] = []
        var start = 0
        while start < unique.count {
            let end = min(start + SegmentText.maxDocuments, unique.count)
            parts.append(CollectionSnapshot.Part(CollectionSegment(Array(unique[start..<end]), layout: layout)))
            start = end
        }
        current = Locked(CollectionSnapshot(parts: parts, version: 0, sequence: sequence))
    }

    /// An index over persisted parts (`CollectionIndex+Persistence`).
    init(schema: CollectionSchema, layout: SchemaLayout, restoring snapshot: CollectionSnapshot, configuration: Configuration) {
        mergeBuilt = nil
        self.schema = schema
        self.configuration = configuration
        self.layout = layout
        decoder = CollectionDocumentDecoder(schema: schema, limits: .unlimited)
        current = Locked(snapshot)
    }

    /// The snapshot to read: the current one once the changes held by
    /// ``applyDeferred(_:through:)`` are in it (see ``catchUp(reportingPrevious:)``).
    var snapshot: CollectionSnapshot {
        if deferred.withLock({ !$0.changes.isEmpty }) { catchUp(reportingPrevious: false) }
        return published
    }

    /// The current snapshot as published, without the held changes: what writes and merges
    /// (under the writer lock) start from.
    var published: CollectionSnapshot { current.withLock { $0 } }

    /// Live documents.
    public var count: Int { snapshot.count }

    /// Incremented by every `apply` that changed something.
    public var version: UInt64 { snapshot.version }

    /// Incremented by every change of the snapshot's segments or masks (a write's, a merge's):
    /// what a save compares, so that a merge's segment is saved (and its bodies moved to its file) too.
    public var revision: UInt64 { snapshot.revision }

    /// The store's sequence number of the latest change applied (the `through` of the latest
    /// ``apply(_:through:prepared:)``, or the one the index was built or restored at): a persisted copy
    /// of the index holds every change up to it, so a restart applies only the later ones.
    public var sequence: Int64 { snapshot.sequence }

    /// Segments now (for tests and figures).
    var segmentCount: Int { snapshot.parts.count }

    /// The current document with this id.
    public func document(id: String) -> CollectionDocument? {
        let snapshot = snapshot
        guard let (part, d) = snapshot.locate(id) else { return nil }
        return snapshot.parts[part].segment.document(Int(d), decoder: decoder)
    }

    /// Whether a current document has this id (no body is read back).
    public func contains(id: String) -> Bool {
        snapshot.locate(id) != nil
    }

    /// Applies a batch of changes in order, visible together to the next query; returns what
    /// each replaced or removed. Callers decode (and so validate) documents first. `sequence`:
    /// the store's sequence number of the last of them, if they are stored (``sequence``).
    /// `prepared`: the changes' documents indexed already (``prepare(_:)``; the caller checked
    /// it `PreparedBatch.covers(_:)` them): its segments are added as they are, nothing is
    /// built under the writer lock. One this index did not prepare is ignored. Changes held by
    /// ``applyDeferred(_:through:)`` are applied first, in the same segment build when no batch
    /// is prepared (no outcomes for them).
    @discardableResult
    public func apply(
        _ changes: [CollectionChange], through sequence: Int64? = nil, prepared: PreparedBatch? = nil
    ) -> [CollectionChangeOutcome] {
        apply(changes, through: sequence, prepared: prepared, reportingHeld: false)
    }

    /// ``apply(_:through:prepared:)``, with the outcomes of the held changes first when `reportingHeld`.
    func apply(
        _ changes: [CollectionChange], through sequence: Int64? = nil, prepared: PreparedBatch? = nil, reportingHeld: Bool
    ) -> [CollectionChangeOutcome] {
        let (outcomes, startMerging) = writer.withLock { state -> ([CollectionChangeOutcome], Bool) in
            let held = deferred.withLock { $0 }
            let unreported = reportingHeld ? 0 : held.changes.count
            var outcomes: [CollectionChangeOutcome]
            if held.changes.isEmpty {
                outcomes = applyRun(changes, through: sequence, prepared: prepared, reportingFrom: 0, state: &state)
            } else if prepared != nil {
                outcomes = applyRun(held.changes, through: held.sequence, prepared: nil, reportingFrom: unreported, state: &state)
                outcomes += applyRun(changes, through: sequence, prepared: prepared, reportingFrom: 0, state: &state)
            } else {
                let through = [held.sequence, sequence].compactMap { $0 }.max()
                outcomes = applyRun(held.changes + changes, through: through, prepared: nil, reportingFrom: unreported, state: &state)
            }
            // Published (with this write's) before they leave the buffer: a reader that finds it
            // empty finds them in the snapshot.
            if !held.changes.isEmpty { deferred.withLock { $0.removeFirst(held.changes.count) } }
            return (outcomes, state.claimMergeThread(needed: mergePlan(published, excluding: state.merging) != nil))
        }
        if startMerging { startMergeThread() }
        return outcomes
    }

    /// Applies `changes` as one run and publishes the result (under the writer lock); returns the
    /// outcomes of the changes from `reportingFrom` on: the previous versions of the others are
    /// not decoded (held changes, whose callers read no outcomes).
    @discardableResult
    private func applyRun(
        _ changes: [CollectionChange], through sequence: Int64?, prepared: PreparedBatch?, reportingFrom: Int, state: inout WriterState
    ) -> [CollectionChangeOutcome] {
        state.writes &+= 1
        let before = published
        var next = before
        if let sequence, sequence > next.sequence { next.sequence = sequence }
        // A prepared batch of distinct ids (an import's, as a rule) is the run's documents, each
        // id once: no id comes back within the run, so none is kept by id to be looked up again
        // (three hashed look-ups of each id of a million-document import).
        let distinct = prepared.map { accepts($0, distinct: changes.count) } ?? false
        var pending: [String: CollectionDocument] = [:]
        if !distinct { pending.reserveCapacity(changes.count) }  // an import's batch: no growth on the way
        var outcomes: [CollectionChangeOutcome] = []
        outcomes.reserveCapacity(changes.count - min(reportingFrom, changes.count))
        var changed = distinct && !changes.isEmpty
        // A batch's ids are looked up together, before its changes mark anything deleted: so a
        // place found is checked again (the same id met earlier in the batch may have deleted it).
        let located = changes.count > 1 ? next.locate(changes.map(\.id)) : nil
        for (offset, change) in changes.enumerated() {
            let reports = offset >= reportingFrom
            var previous: CollectionDocument?
            var replaced = false
            let id = change.id
            if !distinct, let document = pending[id] {
                previous = document
                replaced = true
                pending[id] = nil
            } else if let (part, d) = located.map({ $0[offset] }) ?? next.locate(id), !next.parts[part].deleted.contains(d) {
                if reports { previous = next.parts[part].segment.document(Int(d), decoder: decoder) }
                replaced = true
                next.parts[part].deleted.insert(d)
                next.parts[part].deletedCount += 1
            }
            if !distinct {
                if case .upsert(let document) = change { pending[id] = document }
                changed = changed || replaced || pending[id] != nil
            }
            if reports { outcomes.append(CollectionChangeOutcome(change: change, previous: previous)) }
        }
        guard changed else {
            let advanced = next
            if advanced.sequence != before.sequence { current.withLock { $0 = advanced } }
            return outcomes
        }
        next.version += 1
        next.revision += 1
        if let prepared, distinct || accepts(prepared, pending: pending) {
            next.parts.removeAll { $0.liveCount == 0 && !state.merging.contains($0.segment.serial) }
            next.parts.append(contentsOf: prepared.segments.map { CollectionSnapshot.Part($0) })
        } else {
            addRecent(&next, adding: Array(pending.values), merging: state.merging)
        }
        let swapped = next
        current.withLock { $0 = swapped }
        return outcomes
    }

    /// Puts `documents` in a new segment with the live documents of the small segments (not
    /// those a merge is reading: `merging`), and drops the segments left empty.
    private func addRecent(_ snapshot: inout CollectionSnapshot, adding documents: [CollectionDocument], merging: Set<UInt64>) {
        var recent = documents
        snapshot.parts.removeAll { part in
            guard !merging.contains(part.segment.serial) else { return false }
            if part.liveCount == 0 { return true }
            if part.liveCount < configuration.recentSegmentDocuments {
                recent += liveDocuments(part)
                return true
            }
            return false
        }
        // A segment numbers at most `SegmentText.maxDocuments`: a larger batch makes several.
        for start in stride(from: 0, to: recent.count, by: SegmentText.maxDocuments) {
            let slice = Array(recent[start..<min(start + SegmentText.maxDocuments, recent.count)])
            let kept = slice.count < configuration.recentSegmentDocuments ? slice : nil
            snapshot.parts.append(CollectionSnapshot.Part(CollectionSegment(slice, layout: layout), recentDocuments: kept))
        }
    }

    /// 0 below `recentSegmentDocuments`, then one more per factor of `mergeFanIn`.
    func level(_ live: Int) -> Int {
        var level = 0, bound = configuration.recentSegmentDocuments
        while live >= bound {
            level += 1
            bound *= max(configuration.mergeFanIn, 2)
        }
        return level
    }

    /// The live documents of a part, decoded again from their bodies (on all cores when many).
    func liveDocuments(_ part: CollectionSnapshot.Part) -> [CollectionDocument] {
        let segment = part.segment
        if let kept = part.recentDocuments {
            return kept.filter { document in segment.number(of: document.id).map { !part.deleted.contains($0) } ?? false }
        }
        let chunks = segment.count < 4_096 ? 1 : max(1, ProcessInfo.processInfo.activeProcessorCount) * 4
        let size = (segment.count + chunks - 1) / chunks
        let results = Locked<[[CollectionDocument]]>(Array(repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var documents: [CollectionDocument] = []
            segment.bodies.forEachBody(in: min(chunk * size, segment.count)..<min((chunk + 1) * size, segment.count)) { d, body in
                guard !part.deleted.contains(UInt32(d)), let document = try? decoder.decode(body) else { return }
                documents.append(document)
            }
            results.withLock { $0[chunk] = documents }
        }
        return results.withLock { $0.flatMap { $0 } }
    }

    /// Every document, in no particular order: what a rebuild under a new schema starts from.
    public func allDocuments() -> [CollectionDocument] {
        snapshot.parts.flatMap(liveDocuments)
    }

    /// Every document with the sequence number they are current at, read from one snapshot.
    public func allDocumentsWithSequence() -> (documents: [CollectionDocument], sequence: Int64) {
        let snapshot = snapshot
        return (snapshot.parts.flatMap(liveDocuments), snapshot.sequence)
    }

    /// Serves the bodies of the segments named in `bodies` (by serial) from there: their saved
    /// files instead of memory.
    func adoptBodies(_ bodies: [UInt64: SegmentBodies]) {
        guard !bodies.isEmpty else { return }
        writer.withLock { _ in
            var next = published
            var changed = false
            for (i, part) in next.parts.enumerated() {
                guard let inFile = bodies[part.segment.serial], !part.segment.bodies.isInFile else { continue }
                next.parts[i] = CollectionSnapshot.Part(part.segment.withBodies(inFile), deleted: part.deleted, deletedCount: part.deletedCount)
                changed = true
            }
            guard changed else { return }
            let swapped = next
            current.withLock { $0 = swapped }
        }
    }

    /// Records that the index is current at `sequence` with no change of its own (a schema put
    /// that made it, say); never goes back.
    public func advance(to sequence: Int64) {
        writer.withLock { _ in
            current.withLock { if sequence > $0.sequence { $0.sequence = sequence } }
        }
    }

    /// Runs `query` on the current snapshot.
    public func search(_ query: CollectionQuery) -> CollectionSearchResult {
        search(query, rules: .none)
    }

    /// Runs `query` on the current snapshot, with the collection's synonyms and stop words (`rules`).
    public func search(_ query: CollectionQuery, rules: QueryRules) -> CollectionSearchResult {
        let search = CollectionSearch(
            snapshot: snapshot, layout: layout, decoder: decoder, query: query, textFilter: configuration.textFilter, rules: rules)
        return scratches.withScratch { search.run(scratch: $0) }
    }
}

extension CollectionDocumentLimits {
    /// No bounds: for bodies the index already accepted.
    static let unlimited: CollectionDocumentLimits = {
        var limits = CollectionDocumentLimits()
        limits.maxBodyBytes = .max
        limits.maxIdBytes = .max
        limits.maxStringBytes = .max
        limits.maxArrayElements = .max
        return limits
    }()
}
