import Foundation
import Search

/// One bulk import into a collection (`POST /collections/{name}/documents`), fed with the
/// body's bytes as they arrive: each line (NDJSON) or record (CSV) is parsed and checked
/// against the schema, and the good ones are committed in batches. A bad line is reported and
/// the others go on. An actor: one request feeds it, in order.
///
/// Three stages overlap, one batch each (two cores): batch N+2 is parsed while N+1 is
/// committed to the store and N is applied to the index. Batches are stored in order and
/// applied in order, each as one index write of its own; the answer waits for the last one to
/// be both durable and applied.
actor ImportSession {
    enum Format: Sendable {
        case ndjson
        case csv
    }

    /// The answer: `{"created", "updated", "failed", "errors": [{"line", "id", "status", "detail"}]}`.
    struct Report: Sendable, Equatable, Encodable {
        struct LineError: Sendable, Equatable, Encodable {
            let line: Int
            let id: String?
            let status: Int
            let detail: String
        }

        var created = 0
        var updated = 0
        var failed = 0
        var errors: [LineError] = []
        /// The sequence number of the import's last change (`Signalbox-Seq`), 0 when nothing was written.
        var lastSequence: Int64 = 0

        private enum CodingKeys: String, CodingKey { case created, updated, failed, errors }
    }

    /// Most errors listed in the report; all are counted.
    static let maxListedErrors = 100

    private let format: Format
    private let decoder: CollectionDocumentDecoder
    private let batchSize: Int
    /// Whether each of a batch's ids is stored (indexed) already, read at once.
    private let exists: @Sendable ([String]) -> [Bool]
    /// Commits one batch durably (one transaction); returns its changes, numbered by the store.
    private let store: @Sendable ([CollectionDocument]) async throws -> [ChangeApplier.Change]
    /// Applies a stored batch to the index (one write) and returns once it is searchable, so
    /// that `exists` sees its ids.
    private let apply: @Sendable ([ChangeApplier.Change]) async throws -> Void
    private var ndjson = NDJSONLineReader()
    private var csv = CSVRecordReader()
    private var csvBuilder: CSVDocumentBuilder?
    private var schema: CollectionSchema
    private var pending: [(line: Int, document: CollectionDocument)] = []
    /// The ids of the batch still being committed, which `exists` may not see yet. Every batch
    /// before it is applied (``flush()``), so `exists` answers for those: no set of every id of
    /// the import (a million strings, held to the end).
    private var committingIDs = Set<String>()
    /// The batch being committed and applied while the next one is parsed.
    private var committing: BatchInFlight?
    private(set) var report = Report()

    init(
        format: Format, schema: CollectionSchema, limits: CollectionDocumentLimits, batchSize: Int,
        exists: @escaping @Sendable ([String]) -> [Bool],
        store: @escaping @Sendable ([CollectionDocument]) async throws -> [ChangeApplier.Change],
        apply: @escaping @Sendable ([ChangeApplier.Change]) async throws -> Void
    ) {
        self.format = format
        self.schema = schema
        decoder = CollectionDocumentDecoder(schema: schema, limits: limits)
        self.batchSize = max(batchSize, 1)
        self.exists = exists
        self.store = store
        self.apply = apply
    }

    /// Parses `chunk`; commits a batch whenever one is full.
    func feed(_ chunk: [UInt8]) async throws {
        switch format {
        case .ndjson: try await take(ndjson.feed(chunk))
        case .csv: try await take(csv.feed(chunk))
        }
    }

    /// Parses what is left and commits the last batch; returns the report.
    func finish() async throws -> Report {
        switch format {
        case .ndjson: try await take(ndjson.finish())
        case .csv: try await take(csv.finish())
        }
        try await flush()
        try await settle()
        return report
    }

    private func take(_ lines: [Result<NDJSONLine, ImportLineError>]) async throws {
        for line in lines {
            switch line {
            case .success(let line): try await add(line.bytes, line: line.number)
            case .failure(let error): fail(line: error.line, id: nil, error.message)
            }
        }
    }

    private func take(_ records: [Result<CSVRecord, ImportLineError>]) async throws {
        for record in records {
            switch record {
            case .failure(let error):
                fail(line: error.line, id: nil, error.message)
            case .success(let record):
                guard let builder = csvBuilder else {
                    do {
                        csvBuilder = try CSVDocumentBuilder(header: record, schema: schema)
                    } catch {
                        // Without a usable header no record can be read: the import stops here.
                        fail(line: error.line, id: nil, error.message)
                        throw ImportHeaderError(detail: "line \(error.line): \(error.message)")
                    }
                    continue
                }
                do {
                    try await add(try builder.document(from: record), line: record.line)
                } catch let error as ImportLineError {
                    fail(line: error.line, id: nil, error.message)
                }
            }
        }
    }

    private func add(_ json: [UInt8], line: Int) async throws {
        do {
            let document = try decoder.decode(json)
            pending.append((line, document))
            if pending.count >= batchSize { try await flush() }
        } catch let error as DocumentError {
            fail(line: line, id: Self.id(in: json, field: schema.idField), error.description)
        }
    }

    /// The id a refused line names, for its error (`errors[].id`): only on this rare path is the
    /// line parsed a second time. nil when the line is not a JSON object or has no usable id.
    private static func id(in json: [UInt8], field: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else { return nil }
        switch object[field] {
        case let text as String: return String(text.prefix(512))
        case let number as Int: return String(number)
        default: return nil
        }
    }

    /// Hands the pending documents to the store and returns to parsing once the batch before
    /// them is applied: the parser runs at most one batch ahead of the store, the store one
    /// batch ahead of the index. A failed batch fails the import at the next flush (or at
    /// ``finish()``); a batch already stored then is durable and is applied all the same.
    private func flush() async throws {
        guard !pending.isEmpty else { return }
        let batch = pending.map(\.document)
        pending.removeAll(keepingCapacity: true)
        // A document written twice in one import is created once, then updated.
        var counts = (created: 0, updated: 0)
        var ids = Set<String>(minimumCapacity: batch.count)
        // One look-up of the batch: not a lock and a snapshot of the index per document.
        let stored = exists(batch.map(\.id))
        for (d, document) in batch.enumerated() {
            let isNew = ids.insert(document.id).inserted && !committingIDs.contains(document.id) && !stored[d]
            if isNew { counts.created += 1 } else { counts.updated += 1 }
        }
        committingIDs = ids
        let previous = committing
        committing = BatchInFlight(batch, after: previous, counts: counts, store: store, apply: apply)
        if let previous { try await settle(previous) }
    }

    /// Waits for the batch still in flight, if any.
    private func settle() async throws {
        guard let last = committing else { return }
        committing = nil
        try await settle(last)
    }

    private func settle(_ batch: BatchInFlight) async throws {
        report.lastSequence = try await batch.applied.value
        report.created += batch.counts.created
        report.updated += batch.counts.updated
    }

    private func fail(line: Int, id: String?, _ detail: String) {
        report.failed += 1
        if report.errors.count < Self.maxListedErrors {
            report.errors.append(Report.LineError(line: line, id: id, status: 422, detail: detail))
        }
    }
}

/// One batch on its way: stored once the batch before it is stored (the store numbers batches
/// in the order of the import; not after a batch that failed to store), applied once it is
/// stored and the batch before it is applied or failed (each batch one index write, in order).
/// The store of a batch thus overlaps the index write of the one before.
private struct BatchInFlight: Sendable {
    /// The batch's last sequence number, once it is durable and searchable.
    let applied: Task<Int64, any Error>
    /// Completes once the batch is durable. Without the changes: the batch after it waits on
    /// it, and would otherwise keep this batch's documents to its own end.
    let stored: Task<Void, any Error>
    let counts: (created: Int, updated: Int)

    init(
        _ documents: [CollectionDocument], after previous: BatchInFlight?, counts: (created: Int, updated: Int),
        store: @escaping @Sendable ([CollectionDocument]) async throws -> [ChangeApplier.Change],
        apply: @escaping @Sendable ([ChangeApplier.Change]) async throws -> Void
    ) {
        let previousStored = previous?.stored, previousApplied = previous?.applied
        let changes = Task<[ChangeApplier.Change], any Error> {
            _ = try await previousStored?.value
            return try await store(documents)
        }
        stored = Task { _ = try await changes.value }
        applied = Task {
            let stored = try await changes.value
            // Applied whatever became of the batch before (its apply may have timed out): a batch
            // that is stored is always offered, or this replica would wait for its numbers forever.
            _ = try? await previousApplied?.value
            try await apply(stored)
            return stored.last?.sequence ?? 0
        }
        self.counts = counts
    }
}

/// A CSV import whose header cannot be read against the schema: nothing can be imported (400).
struct ImportHeaderError: Error, Sendable {
    let detail: String
}
