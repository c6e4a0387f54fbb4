import Base
import Foundation
import Rx
import Search

/// Reads and writes the collections: schemas, documents, imports.
///
/// As for the cities (``DocumentService``): a write is checked against the collection's
/// schema, made durable in the store (which numbers it), applied to this replica by the
/// ``ChangeApplier`` (index, live queries, change feed), then answered: durable and
/// searchable before its answer.
final class CollectionService: Sendable {
    let catalog: CollectionCatalog
    private let store: any DocumentStore
    private let applier: ChangeApplier
    private let metrics: ServiceMetrics
    private let applyWait: RxTimeInterval
    let limits: CollectionLimits

    init(
        catalog: CollectionCatalog, store: any DocumentStore, applier: ChangeApplier, metrics: ServiceMetrics,
        applyWait: RxTimeInterval, limits: CollectionLimits
    ) {
        self.catalog = catalog
        self.store = store
        self.applier = applier
        self.metrics = metrics
        self.applyWait = applyWait
        self.limits = limits
    }

    /// The collection named `name`, or ``CollectionError/noSuchCollection(_:)``.
    func collection(_ name: String) throws(CollectionError) -> ServedCollection {
        guard let collection = catalog.named(name) else { throw .noSuchCollection(name) }
        return collection
    }

    // MARK: Schemas

    /// Creates the collection (`created`) or replaces its schema; the index is rebuilt in the
    /// background while the old one serves.
    func putSchema(_ name: String, json: [UInt8]) async throws -> (created: Bool, receipt: WriteReceipt) {
        guard CollectionSchema.isValidCollectionName(name) else { throw CollectionError.invalidName(name) }
        let existing = catalog.named(name)
        if existing?.isBuiltIn == true { throw CollectionError.builtIn(name) }
        let schema: CollectionSchema
        do {
            schema = try CollectionSchema.decode(json: json, limits: limits.schema)
        } catch {
            throw CollectionError.invalidSchema(error.description)
        }
        if existing == nil && catalog.all.filter({ !$0.isBuiltIn }).count >= limits.maxCollections {
            throw CollectionError.tooManyCollections(limit: limits.maxCollections)
        }
        let body = Data(schema.encodedJSON())
        let receipt = try await commitAndApply(.putSchema(collection: name, schema: body), kind: .schema, id: "")
        return (existing == nil, receipt)
    }

    /// Deletes the collection and its documents, and with them, in the same transaction and
    /// change, its synonyms and stop words: a collection made again under the name never inherits
    /// them. (Replicas drop them with the collection they belong to.)
    func drop(_ name: String) async throws -> WriteReceipt {
        let collection = try collection(name)
        if collection.isBuiltIn { throw CollectionError.builtIn(name) }
        let settings = TextSettingsDocuments.Part.allCases.map {
            DocumentKey(collection: TextSettingsDocuments.collection, id: TextSettingsDocuments.id(of: name, $0))
        }
        return try await commitAndApply(.dropCollection(collection: name, alsoRemoving: settings), kind: .schema, id: "")
    }

    // MARK: Synonyms and stop words

    /// Replaces the collection's synonyms (`{"synonyms": [[...]], "oneWay": {...}}`); queries,
    /// live ones included, apply them from the moment this replica applies the change.
    func putSynonyms(_ name: String, json: [UInt8]) async throws -> (SynonymSettings, WriteReceipt) {
        let collection = try collection(name)
        if collection.isBuiltIn { throw CollectionError.builtIn(name) }
        let settings: SynonymSettings
        do {
            settings = try SynonymSettings.decode(json: json, limits: limits.text)
        } catch {
            throw CollectionError.invalidTextSettings(error)
        }
        return (settings, try await putTextSettings(name, .synonyms, body: settings.isEmpty ? nil : Data(settings.encodedJSON())))
    }

    /// Replaces the collection's stop words (`{"stopwords": [...]}`), as ``putSynonyms(_:json:)``.
    func putStopWords(_ name: String, json: [UInt8]) async throws -> (StopWordSettings, WriteReceipt) {
        let collection = try collection(name)
        if collection.isBuiltIn { throw CollectionError.builtIn(name) }
        let settings: StopWordSettings
        do {
            settings = try StopWordSettings.decode(json: json, limits: limits.text)
        } catch {
            throw CollectionError.invalidTextSettings(error)
        }
        return (settings, try await putTextSettings(name, .stopwords, body: settings.isEmpty ? nil : Data(settings.encodedJSON())))
    }

    /// Commits one settings document (nil: none) and waits for this replica to apply it. Putting
    /// none where none is stored commits nothing (a delete of nothing is refused by the store).
    private func putTextSettings(_ name: String, _ part: TextSettingsDocuments.Part, body: Data?) async throws -> WriteReceipt {
        let collection = TextSettingsDocuments.collection, id = TextSettingsDocuments.id(of: name, part)
        let write: StoreWrite
        if let body {
            write = .upsert(collection: collection, id: id, body: body)
        } else {
            write = .delete(collection: collection, id: id, inBaseData: false)
        }
        let sequence: Int64
        do {
            sequence = try await store.commit(write)
        } catch is DocumentNotFound {
            return WriteReceipt(sequence: applier.applied.value)
        }
        metrics.write()
        try await applier.applyWrite(
            ChangeApplier.Change(sequence: sequence, collection: collection, id: id, body: body), waitingAtMost: applyWait)
        return WriteReceipt(sequence: sequence)
    }

    // MARK: Documents

    func document(_ name: String, id: String) throws -> CollectionDocument? {
        try collection(name).index.document(id: id)
    }

    /// Stores the document `json` (its id field may be left out, and must equal `id` if given).
    func upsert(_ name: String, id: String, json: [UInt8]) async throws -> WriteReceipt {
        let collection = try collection(name)
        if collection.isBuiltIn { throw CollectionError.unsupportedImport("Write cities through PUT /documents/{id}.") }
        let document = try decode(json, pathID: id, in: collection)
        if collection.index.document(id: id) == nil && collection.index.count >= limits.maxDocuments {
            throw CollectionError.tooManyDocuments(collection: name, limit: limits.maxDocuments)
        }
        let deadline = DispatchTime.now() + applyWait
        let receipt = try await commitAndApply(
            .upsert(collection: name, id: id, body: Data(document.body)), kind: .document, id: id, record: document)
        // During a schema change the serving index may not hold it (it does not fit the old
        // schema): answered once the new index serves it, within the same wait.
        guard await collection.served([id], by: deadline) else {
            throw NotAppliedInTime(sequence: receipt.sequence, limit: applyWait, isDurableWrite: true, waitsForRebuild: true)
        }
        return receipt
    }

    func delete(_ name: String, id: String) async throws -> WriteReceipt {
        let collection = try collection(name)
        if collection.isBuiltIn { throw CollectionError.unsupportedImport("Delete cities through DELETE /documents/{id}.") }
        guard collection.contains(id: id) else { throw CollectionError.noSuchDocument(collection: name, id: id) }
        return try await commitAndApply(.delete(collection: name, id: id, inBaseData: true), kind: .document, id: id)
    }

    private func decode(_ json: [UInt8], pathID: String, in collection: ServedCollection) throws -> CollectionDocument {
        let idField = collection.schema.idField
        var body = json
        var document: CollectionDocument
        do {
            document = try collection.decoder.decode(body)
        } catch DocumentError.missingId {
            // The id may be left out of the body: it is the path's.
            body = Self.inserting(id: pathID, field: idField, into: json)
            do {
                document = try collection.decoder.decode(body)
            } catch {
                throw CollectionError.invalidDocument(error.description)
            }
        } catch {
            throw CollectionError.invalidDocument(error.description)
        }
        guard document.id == pathID else { throw CollectionError.idMismatch(body: document.id, path: pathID) }
        return document
    }

    /// `json` (an object) with `"field": "id"` as its first member.
    private static func inserting(id: String, field: String, into json: [UInt8]) -> [UInt8] {
        guard let open = json.firstIndex(of: UInt8(ascii: "{")) else { return json }
        var writer = JSONWriter(capacity: json.count + id.utf8.count + field.utf8.count + 8)
        writer.raw("{")
        writer.key(field)
        writer.string(id)
        let rest = json[(open + 1)...]
        let isEmpty = rest.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } == UInt8(ascii: "}")
        if !isEmpty { writer.raw(",") }
        writer.raw(Array(rest))
        return writer.bytes
    }

    // MARK: Imports

    /// An import session for `name`: each batch is committed durably while the batch before it
    /// is applied to the index (one index write per batch), and the next one is parsed; the
    /// import is answered once all of it is applied (searchable).
    func importSession(_ name: String, format: ImportSession.Format) throws -> ImportSession {
        let collection = try collection(name)
        if collection.isBuiltIn { throw CollectionError.unsupportedImport("Import into the built-in cities is not supported; PUT /documents/{id}.") }
        let (limits, store, applier, applyWait) = (self.limits, self.store, self.applier, self.applyWait)
        // The last sequence number this import has committed.
        let committed = Locked<Int64>(0)
        // Each stored batch's tally, by its first number, from its commit to its index write.
        let tallies = Locked<[Int64: WriteTally]>([:])
        return ImportSession(
            format: format, schema: collection.schema, limits: limits.document, batchSize: limits.importBatch,
            // Indexed before it is committed, off the pool, while the batch before is committed:
            // its index write is then a swap, and the writes numbered after it wait for that, not
            // for its build.
            prepare: { documents in await collection.prepare(documents) },
            store: { documents, prepared in
                // Documents committed but not yet in the index count too (as new: the bound is never passed).
                let unapplied = Int(max(0, committed.withLock { $0 } - applier.applied.value))
                if collection.index.count + unapplied + documents.count > limits.maxDocuments {
                    throw CollectionError.tooManyDocuments(collection: name, limit: limits.maxDocuments)
                }
                // One copy of each body, shared by the store's write and the applier's change.
                let bodies = documents.map { Data($0.body) }
                // Counted from before the batch is committed, not from its own index write: on
                // PostgreSQL the follower may read the batch back and apply it first, even before
                // the commit returns here. Its numbers come after this import's batches before it.
                let tally = WriteTally(after: max(committed.withLock { $0 }, applier.applied.value))
                applier.count(tally)
                let first: Int64
                do {
                    first = try await store.commit(
                        batch: documents.indices.map { .upsert(collection: name, id: documents[$0].id, body: bodies[$0]) })
                } catch {
                    tally.abandon()
                    throw error
                }
                if let prepared { collection.expect(prepared, from: first) }
                let last = first + Int64(documents.count - 1)
                committed.withLock { $0 = last }
                tally.close(to: first...last)
                tallies.withLock { $0[first] = tally }
                return documents.indices.map { d in
                    ChangeApplier.Change(
                        sequence: first + Int64(d), collection: name, id: documents[d].id, record: documents[d], body: bodies[d])
                }
            },
            apply: { changes in
                guard let first = changes.first?.sequence, let last = changes.last?.sequence else { return WriteTally.Counts() }
                // Offered once the batch before is applied, so each batch is one index write of its
                // own size (not whatever waited: the index's merges depend on its writes' sizes, see
                // `import.batchSize`), and the index trails the store by at most
                // `ImportSession.maxBatchesInFlight` batches. Answered once searchable, as a PUT is.
                // Counted by the index write's look-up of each id (the one that masks the version it
                // replaces), not by one of their own before.
                let tally = tallies.withLock { $0.removeValue(forKey: first) } ?? WriteTally(sequences: first...last)
                applier.offer(changes)
                try await applier.applied(atLeast: last, within: Self.batchApplyWait).value
                // During a schema change, documents the old index cannot hold wait for the new one, as
                // a PUT does (their ids listed only then: not a copy of each change per batch).
                var isServed = true
                if collection.holdsBack(through: last) {
                    isServed = await collection.served(changes.withUnsafeBufferPointer { $0.map { $0.id } }, by: .now() + applyWait)
                }
                guard isServed else {
                    throw NotAppliedInTime(sequence: last, limit: applyWait, isDurableWrite: true, waitsForRebuild: true)
                }
                // A change applied without outcomes (a replica that caught up from the documents,
                // the log having dropped what it missed) was not counted: what it replaced cannot
                // be told after the fact, it counts as created.
                var counts = tally.counted
                counts.created += changes.count - counts.total
                return counts
            })
    }

    /// The longest an import's batch may take to be applied on this replica before the import fails (503).
    static let batchApplyWait = RxTimeInterval.seconds(120)

    private func commitAndApply(
        _ write: StoreWrite, kind: StoredChangeKind, id: String, record: CollectionDocument? = nil
    ) async throws -> WriteReceipt {
        let sequence = try await store.commit(write)
        metrics.write()
        try await applier.applyWrite(
            ChangeApplier.Change(
                sequence: sequence, collection: write.collection, kind: kind, id: id, record: record, body: write.body),
            waitingAtMost: applyWait)
        return WriteReceipt(sequence: sequence)
    }
}
