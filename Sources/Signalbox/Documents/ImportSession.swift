import Foundation
import Search

/// One bulk import into a collection (`POST /collections/{name}/documents`), fed with the
/// body's bytes as they arrive: each line (NDJSON) or record (CSV) is parsed and checked
/// against the schema, and the good ones are committed in batches. A bad line is reported and
/// the others go on. An actor: one request feeds it, in order.
///
/// Four stages overlap (two cores): while batch N+2 is parsed, N+1 is indexed ahead (its
/// segments built) and committed to the store, and N is applied to the index. A batch is
/// indexed ahead as soon as it is parsed, while the one before is still committed: each
/// stage runs on a thread of its own, so two threads have work whichever stage is slow.
/// Batches are stored in order and applied in order, each as one index write of its own; the
/// answer waits for the last one to be both durable and applied.
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

    /// Most batches on their way (indexed ahead, committed or applied) while the next is parsed:
    /// with one, the parser waited for each batch's index write, and the store for the parser.
    static let maxBatchesInFlight = 2

    private let format: Format
    private let decoder: CollectionDocumentDecoder
    private let batchSize: Int
    /// Readies a batch for its index write as soon as it is parsed, before its turn to be
    /// stored, off the pool: its segments built ahead (``ServedCollection/prepare(_:)``); nil
    /// when there is nothing to build ahead.
    private let prepare: @Sendable ([CollectionDocument]) async -> PreparedBatch?
    /// Commits one batch durably (one transaction), with what `prepare` made of it; returns its
    /// changes, numbered by the store.
    private let store: @Sendable ([CollectionDocument], PreparedBatch?) async throws -> [ChangeApplier.Change]
    /// Applies a stored batch to the index (one write) and returns once it is searchable, with
    /// how many of its documents were created and how many replaced one: counted by the index
    /// write's own look-up of each id, in order (an id the index holds, from an earlier batch
    /// too, or one written earlier in the same batch, is updated).
    private let apply: @Sendable ([ChangeApplier.Change]) async throws -> WriteTally.Counts
    private var ndjson = NDJSONLineReader()
    private var csv = CSVRecordReader()
    private var csvBuilder: CSVDocumentBuilder?
    private var schema: CollectionSchema
    private var pending: [CollectionDocument] = []
    /// The batches being indexed, committed and applied while the next one is parsed, oldest first.
    private var inFlight: [BatchInFlight] = []
    private(set) var report = Report()

    init(
        format: Format, schema: CollectionSchema, limits: CollectionDocumentLimits, batchSize: Int,
        prepare: @escaping @Sendable ([CollectionDocument]) async -> PreparedBatch? = { _ in nil },
        store: @escaping @Sendable ([CollectionDocument], PreparedBatch?) async throws -> [ChangeApplier.Change],
        apply: @escaping @Sendable ([ChangeApplier.Change]) async throws -> WriteTally.Counts
    ) {
        self.format = format
        self.schema = schema
        decoder = CollectionDocumentDecoder(schema: schema, limits: limits)
        self.batchSize = max(batchSize, 1)
        self.prepare = prepare
        pending.reserveCapacity(self.batchSize)
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
            pending.append(document)
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

    /// Hands the pending documents on and returns to parsing once the batch
    /// ``maxBatchesInFlight`` before them is applied: the store runs at most that many batches
    /// ahead of the index, the parser one batch ahead of those. A failed batch fails the import
    /// at a later flush (or at ``finish()``); a batch already stored then is durable and is
    /// applied all the same. Its created and updated documents are counted as it is applied: a
    /// batch that fails counts none.
    private func flush() async throws {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = []
        pending.reserveCapacity(batchSize)
        inFlight.append(BatchInFlight(batch, after: inFlight.last, prepare: prepare, store: store, apply: apply))
        while inFlight.count > Self.maxBatchesInFlight { try await settle(inFlight.removeFirst()) }
    }

    /// Waits for the batches still in flight, in order.
    private func settle() async throws {
        while !inFlight.isEmpty { try await settle(inFlight.removeFirst()) }
    }

    private func settle(_ batch: BatchInFlight) async throws {
        let (last, counts) = try await batch.applied.value
        report.lastSequence = last
        report.created += counts.created
        report.updated += counts.updated
    }

    private func fail(line: Int, id: String?, _ detail: String) {
        report.failed += 1
        if report.errors.count < Self.maxListedErrors {
            report.errors.append(Report.LineError(line: line, id: id, status: 422, detail: detail))
        }
    }
}

/// One batch on its way: prepared at once (its segments built while the batches before it are
/// committed and applied), stored once it is prepared and the batch before it is stored (the
/// store numbers batches in the order of the import; not after a batch that failed to store),
/// applied once it is stored and the batch before it is applied or failed (each batch one index
/// write, in order). The store of a batch thus overlaps the index write of the one before, and
/// its build the store of the one before.
private struct BatchInFlight: Sendable {
    /// The batch's last sequence number and its counts, once it is durable and searchable.
    let applied: Task<(last: Int64, counts: WriteTally.Counts), any Error>
    /// Completes once the batch is durable. Without the changes: the batch after it waits on
    /// it, and would otherwise keep this batch's documents to its own end.
    let stored: Task<Void, any Error>

    init(
        _ documents: [CollectionDocument], after previous: BatchInFlight?,
        prepare: @escaping @Sendable ([CollectionDocument]) async -> PreparedBatch?,
        store: @escaping @Sendable ([CollectionDocument], PreparedBatch?) async throws -> [ChangeApplier.Change],
        apply: @escaping @Sendable ([ChangeApplier.Change]) async throws -> WriteTally.Counts
    ) {
        let previousStored = previous?.stored, previousApplied = previous?.applied
        let prepared = Task { await prepare(documents) }
        let changes = Task<[ChangeApplier.Change], any Error> {
            let ready = await prepared.value
            _ = try await previousStored?.value
            return try await store(documents, ready)
        }
        stored = Task { _ = try await changes.value }
        applied = Task {
            let stored = try await changes.value
            // Applied whatever became of the batch before (its apply may have timed out): a batch
            // that is stored is always offered, or this replica would wait for its numbers forever.
            _ = try? await previousApplied?.value
            let counts = try await apply(stored)
            return (stored.last?.sequence ?? 0, counts)
        }
    }
}

/// A CSV import whose header cannot be read against the schema: nothing can be imported (400).
struct ImportHeaderError: Error, Sendable {
    let detail: String
}
