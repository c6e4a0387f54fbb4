import Foundation
import Search

/// One bulk import into a collection (`POST /collections/{name}/documents`), fed with the
/// body's bytes as they arrive: each line (NDJSON) or record (CSV) is parsed and checked
/// against the schema, and the good ones are committed in batches, each durable before the
/// next starts. A bad line is reported and the others go on. An actor: one request feeds it, in order.
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
    private let exists: @Sendable (String) -> Bool
    /// Commits one batch durably and applies it to the index, so that `exists` sees its ids once
    /// it returns; returns the batch's last sequence number.
    private let commit: @Sendable ([CollectionDocument]) async throws -> Int64
    /// Returns once every change up to the given sequence number is applied (searchable).
    private let applied: @Sendable (Int64) async throws -> Void
    private var ndjson = NDJSONLineReader()
    private var csv = CSVRecordReader()
    private var csvBuilder: CSVDocumentBuilder?
    private var schema: CollectionSchema
    private var pending: [(line: Int, document: CollectionDocument)] = []
    /// The ids of the batch still being committed, which `exists` may not see yet. Every batch
    /// before it is applied (``flush()``), so `exists` answers for those: no set of every id of
    /// the import (a million strings, held to the end).
    private var committingIDs = Set<String>()
    /// The batch being committed and applied while the next one is parsed, and what it counts.
    private var committing: (task: Task<Int64, any Error>, counts: (created: Int, updated: Int))?
    private(set) var report = Report()

    init(
        format: Format, schema: CollectionSchema, limits: CollectionDocumentLimits, batchSize: Int,
        exists: @escaping @Sendable (String) -> Bool, commit: @escaping @Sendable ([CollectionDocument]) async throws -> Int64,
        applied: @escaping @Sendable (Int64) async throws -> Void = { _ in }
    ) {
        self.format = format
        self.schema = schema
        decoder = CollectionDocumentDecoder(schema: schema, limits: limits)
        self.batchSize = max(batchSize, 1)
        self.exists = exists
        self.commit = commit
        self.applied = applied
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
        if report.lastSequence > 0 { try await applied(report.lastSequence) }
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

    /// Hands the pending documents to the store and, while they are committed and applied,
    /// returns to parsing: the parser runs at most one batch ahead of the store. Batches commit
    /// one after another, in order; a failed commit fails the import at the next flush.
    private func flush() async throws {
        guard !pending.isEmpty else { return }
        let batch = pending.map(\.document)
        pending.removeAll(keepingCapacity: true)
        // A document written twice in one import is created once, then updated.
        var counts = (created: 0, updated: 0)
        var ids = Set<String>(minimumCapacity: batch.count)
        for document in batch {
            let isNew = ids.insert(document.id).inserted && !committingIDs.contains(document.id) && !exists(document.id)
            if isNew { counts.created += 1 } else { counts.updated += 1 }
        }
        committingIDs = ids
        let previous = committing
        let commit = self.commit
        committing = (
            Task {
                if let previous { _ = try await previous.task.value }
                return try await commit(batch)
            }, counts
        )
        if let previous { try await settle(previous) }
    }

    /// Waits for the batch still being committed, if any.
    private func settle() async throws {
        guard let last = committing else { return }
        committing = nil
        try await settle(last)
    }

    private func settle(_ batch: (task: Task<Int64, any Error>, counts: (created: Int, updated: Int))) async throws {
        report.lastSequence = try await batch.task.value
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

/// A CSV import whose header cannot be read against the schema: nothing can be imported (400).
struct ImportHeaderError: Error, Sendable {
    let detail: String
}
