/// A CSV import from bytes to documents: `CSVRecordReader` for the records, the first one as the
/// header of a `CSVDocumentBuilder`, and each later one as a document's JSON, with its line.
///
/// `feed` each chunk as it arrives, then `finish`. A record that cannot be read or converted is
/// an `ImportLineError` among the results, and the import goes on; a header that cannot be used
/// (no id column, a name twice...) is thrown, since no record after it could be read.
public struct CSVDocumentReader: Sendable {
    private var records: CSVRecordReader
    private var builder: CSVDocumentBuilder?
    private let schema: CollectionSchema

    public init(
        schema: CollectionSchema, separator: UInt8 = UInt8(ascii: ","),
        maxRecordBytes: Int = CSVRecordReader.defaultMaxRecordBytes, maxCells: Int = CSVRecordReader.defaultMaxCells
    ) {
        self.schema = schema
        records = CSVRecordReader(separator: separator, maxRecordBytes: maxRecordBytes, maxCells: maxCells)
    }

    /// The documents `chunk` completes, in order.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(ImportLineError) -> [Result<CSVDocument, ImportLineError>] {
        try documents(records.feed(chunk))
    }

    /// The last document, when the input does not end with a line end. The reader is done.
    public mutating func finish() throws(ImportLineError) -> [Result<CSVDocument, ImportLineError>] {
        try documents(records.finish())
    }

    private mutating func documents(_ results: [Result<CSVRecord, ImportLineError>]) throws(ImportLineError) -> [Result<CSVDocument, ImportLineError>] {
        var documents: [Result<CSVDocument, ImportLineError>] = []
        documents.reserveCapacity(results.count)
        for result in results {
            let record: CSVRecord
            switch result {
            case .success(let read): record = read
            case .failure(let error):
                // A header that cannot be read leaves nothing to read the rest by.
                guard builder != nil else { throw error }
                documents.append(.failure(error))
                continue
            }
            guard let builder else {
                builder = try CSVDocumentBuilder(header: record, schema: schema)
                continue
            }
            do {
                documents.append(.success(CSVDocument(line: record.line, json: try builder.document(from: record))))
            } catch {
                documents.append(.failure(error))
            }
        }
        return documents
    }
}

/// One document of a CSV import: the line its record starts on and its JSON body.
public struct CSVDocument: Sendable, Hashable {
    public var line: Int
    public var json: [UInt8]

    public init(line: Int, json: [UInt8]) {
        self.line = line
        self.json = json
    }
}
