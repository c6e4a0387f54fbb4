import Base
import Foundation
import HTTP
import HTTPTypes
import Rx
import Search

/// The collections (issue 25): `GET /collections`, `GET|PUT|DELETE /collections/{name}`,
/// `POST /collections/{name}/documents` (an import), `GET|PUT|DELETE /collections/{name}/documents/{id}`,
/// `GET /collections/{name}/search` (a Single) and `/search/live` (a Driver over SSE), and
/// `GET|PUT /collections/{name}/synonyms` and `/stopwords` (issue 28).
struct CollectionEndpoints {
    let collections: CollectionService
    /// The built-in cities' documents: `PUT|DELETE /collections/cities/documents/{id}` write them
    /// as `/documents/{id}` does.
    let cities: DocumentService
    let access: Access
    var parameters = CollectionQueryParameters()

    func register(on router: some RouteBuilder) {
        router.get("/collections") { request -> Single<Response> in
            // Only the collections the caller may see are listed.
            let grant = try access.identify(request)
            return Single.deferred {
                var json = JSONWriter(capacity: 1_024)
                json.raw("{")
                json.plainKey("collections")
                json.raw("[")
                let visible = collections.catalog.all.filter { grant.maySee($0.name, isPublic: $0.schema.isPublic, action: .search) }
                for (index, collection) in visible.enumerated() {
                    if index > 0 { json.raw(",") }
                    json.raw(collection.summaryJSON())
                }
                json.raw("]}")
                return .just(Self.json(.ok, json.bytes))
            }
        }

        router.get("/collections/:name") { request -> Single<Response> in
            _ = try access.grant(request, .search, collection: request.parameters["name"] ?? "")
            let collection = try Self.mapped { try collections.collection(request.parameters["name"] ?? "") }
            return .just(Self.json(.ok, collection.summaryJSON()))
        }

        router.get("/collections/:name/documents/:id") { request -> Single<Response> in
            let name = request.parameters["name"] ?? "", id = request.parameters["id"] ?? ""
            let grant = try access.grant(request, .documentsRead, collection: name)
            let collection = try Self.mapped { try collections.collection(name) }
            // A document outside a tenant's filter does not exist for it.
            let rule = try grant.tenantRule(for: name, schema: collection.schema)
            guard let document = try Self.mapped({ try collections.document(name, id: id) }), rule?.admits(document) ?? true else {
                throw Self.problem(CollectionError.noSuchDocument(collection: name, id: id))
            }
            return .just(Self.json(.ok, document.body))
        }

        router.get("/collections/:name/search") { request -> Single<Response> in
            let started = DispatchTime.now().uptimeNanoseconds
            let name = request.parameters["name"] ?? ""
            let grant = try access.grant(request, .search, collection: name)
            let collection = try Self.mapped { try collections.collection(name) }
            let query = try grant.limiting(
                try parameters.query(from: request, schema: collection.searchSchema), collection: name, schema: collection.searchSchema)
            return collection.lookups.first(query).map { payload in
                let took = Int((DispatchTime.now().uptimeNanoseconds &- started) / 1000)
                return Self.json(.ok, payload.body(tookMicroseconds: took))
            }
        }

        router.get("/collections/:name/search/live") { request -> Driver<ServerSentEvent> in
            let name = request.parameters["name"] ?? ""
            let grant = try access.grant(request, .search, collection: name)
            let collection = try Self.mapped { try collections.collection(name) }
            let query = try grant.limiting(
                try parameters.query(from: request, schema: collection.searchSchema), collection: name, schema: collection.searchSchema)
            let driver: Driver<CollectionPayload>
            do {
                driver = try collection.lookups.driver(for: query)
            } catch let error as TooManyLiveQueries {
                throw HTTPError(
                    .tooManyRequests, detail: "This collection has \(error.limit) live queries open (live.maxQueries).",
                    headerFields: [.retryAfter: "1"])
            }
            return driver.map { payload in
                ServerSentEvent(event: "result", data: String(decoding: payload.body(tookMicroseconds: payload.computeMicroseconds), as: UTF8.self))
            }
        }

        let schemas = router.checking(access.requiring(.collectionsWrite, parameter: "name"))
        let writes = router.checking(access.requiring(.documentsWrite, parameter: "name"))
        schemas.put("/collections/:name") { request -> Single<Response> in
            let name = request.parameters["name"] ?? ""
            return Self.write {
                let (created, receipt) = try await collections.putSchema(name, json: request.body)
                let summary = collections.catalog.named(name)?.summaryJSON() ?? []
                var response = Self.json(created ? .created : .ok, summary)
                response.headerFields[WriteReceipt.sequenceField] = String(receipt.sequence)
                if created { response.headerFields[.location] = "/collections/\(name)" }
                return response
            }
        }

        schemas.delete("/collections/:name") { request -> Single<WriteReceipt> in
            let name = request.parameters["name"] ?? ""
            return Self.write { try await collections.drop(name) }
        }

        // Synonyms and stop words: read as the collection's searches are, changed as its schema is.
        router.get("/collections/:name/synonyms") { request -> Single<Response> in
            let name = request.parameters["name"] ?? ""
            _ = try access.grant(request, .search, collection: name)
            let collection = try Self.mapped { try collections.collection(name) }
            return .just(Self.json(.ok, collection.synonyms.encodedJSON()))
        }

        router.get("/collections/:name/stopwords") { request -> Single<Response> in
            let name = request.parameters["name"] ?? ""
            _ = try access.grant(request, .search, collection: name)
            let collection = try Self.mapped { try collections.collection(name) }
            return .just(Self.json(.ok, collection.stopWords.encodedJSON()))
        }

        schemas.put("/collections/:name/synonyms") { request -> Single<Response> in
            let name = request.parameters["name"] ?? ""
            try Self.requireJSON(request)
            return Self.write {
                let (settings, receipt) = try await collections.putSynonyms(name, json: request.body)
                return Self.json(.ok, settings.encodedJSON(), receipt: receipt)
            }
        }

        schemas.put("/collections/:name/stopwords") { request -> Single<Response> in
            let name = request.parameters["name"] ?? ""
            try Self.requireJSON(request)
            return Self.write {
                let (settings, receipt) = try await collections.putStopWords(name, json: request.body)
                return Self.json(.ok, settings.encodedJSON(), receipt: receipt)
            }
        }

        writes.put("/collections/:name/documents/:id") { request -> Single<WriteReceipt> in
            let name = request.parameters["name"] ?? "", id = request.parameters["id"] ?? ""
            if name == citiesCollection {
                // The cities' documents have their own shape and checks: the one path of `PUT /documents/{id}`.
                let document = try DocumentInput.decode(request, id: id)
                return StoreProblem.write { try await cities.upsert(document) }
            }
            try Self.requireJSON(request)
            return Self.write { try await collections.upsert(name, id: id, json: request.body) }
        }

        writes.delete("/collections/:name/documents/:id") { request -> Single<WriteReceipt> in
            let name = request.parameters["name"] ?? "", id = request.parameters["id"] ?? ""
            if name == citiesCollection { return StoreProblem.write { try await cities.delete(id: id) } }
            return Self.write { try await collections.delete(name, id: id) }
        }

        writes.post("/collections/:name/documents") { request -> Single<Response> in
            let name = request.parameters["name"] ?? ""
            let format = try Self.importFormat(request)
            let gzipped = try Self.isGzipped(request)
            let session = try Self.mapped { try collections.importSession(name, format: format) }
            let maxBytes = collections.limits.importMaxBytes
            return Self.write {
                try await ImportBody.feed(request.bodyStream, gzipped: gzipped, maxBytes: maxBytes, to: session)
                let report = try await session.finish()
                var response = Self.json(.ok, Array(try JSONCoding.encoder.encode(report)))
                if report.lastSequence > 0 { response.headerFields[WriteReceipt.sequenceField] = String(report.lastSequence) }
                return response
            }
        }
    }

    // MARK: Helpers

    private static func json(_ status: HTTPResponse.Status, _ body: [UInt8]) -> Response {
        Response(status: status, headerFields: [.contentType: "application/json"], body: body)
    }

    /// A write's JSON answer, with its sequence number (`Signalbox-Seq`) for read-your-writes.
    private static func json(_ status: HTTPResponse.Status, _ body: [UInt8], receipt: WriteReceipt) -> Response {
        var response = json(status, body)
        response.headerFields[WriteReceipt.sequenceField] = String(receipt.sequence)
        return response
    }

    /// A write's answer: the work runs to its end even if the client leaves (an accepted
    /// write is never half done); its errors are answered as problems.
    private static func write<Element: Sendable>(_ work: @escaping @Sendable () async throws -> Element) -> Single<Element> {
        runningToEnd(work) { problem($0) }
    }

    private static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw problem(error)
        }
    }

    /// The problem a client gets for `error`.
    static func problem(_ error: any Error) -> any Error {
        if let header = error as? ImportHeaderError {
            // No record can be read without it: the whole import is refused, nothing was written.
            return HTTPError(.badRequest, detail: "The CSV header cannot be read against the schema: \(header.detail)")
        }
        guard let error = error as? CollectionError else { return StoreProblem.httpError(for: error) }
        switch error {
        case .noSuchCollection(let name):
            return HTTPError(.notFound, detail: "No collection is named \(name.prefix(64)).")
        case .noSuchDocument(let collection, let id):
            return HTTPError(.notFound, detail: "The collection \(collection.prefix(64)) has no document with the id \(id.prefix(512)).")
        case .invalidName(let name):
            return HTTPError(
                .badRequest, detail: "\(name.prefix(80)) is not a collection name: 1 to 64 of a-z, 0-9, '_' and '-', starting with a letter or digit.")
        case .invalidSchema(let detail):
            return HTTPError(.badRequest, detail: "The schema is not valid: \(detail)")
        case .builtIn(let name):
            return HTTPError(.conflict, detail: "\(name) is the built-in collection: its schema, synonyms and stop words are fixed, and it cannot be deleted.")
        case .tooManyCollections(let limit):
            return HTTPError(.conflict, detail: "There are already \(limit) collections (collections.max).")
        case .tooManyDocuments(let collection, let limit):
            return HTTPError(.conflict, detail: "The collection \(collection) would hold more than \(limit) documents (collections.maxDocuments).")
        case .invalidDocument(let detail):
            return HTTPError(.unprocessableContent, detail: "The document is not valid: \(detail)")
        case .idMismatch(let body, let path):
            return HTTPError(.unprocessableContent, detail: "The body's id \(body.prefix(512)) differs from the path's id \(path.prefix(512)).")
        case .unsupportedImport(let detail):
            return HTTPError(.conflict, detail: detail)
        case .invalidTextSettings(let error):
            return HTTPError(.badRequest, detail: "The body is not valid: \(error.description)")
        }
    }

    private static func requireJSON(_ request: Request) throws(HTTPError) {
        if let type = request.headerFields.value(of: .contentType)?.lowercased(), !type.hasPrefix("application/json"), !type.contains("+json") {
            throw HTTPError(.unsupportedMediaType, detail: "Send the document as application/json.")
        }
    }

    private static func importFormat(_ request: Request) throws(HTTPError) -> ImportSession.Format {
        let type = (request.headerFields.value(of: .contentType) ?? "").lowercased()
        if type.hasPrefix("application/x-ndjson") || type.hasPrefix("application/jsonl") || type.hasPrefix("application/json-seq") || type.hasPrefix("application/jsonlines") {
            return .ndjson
        }
        if type.hasPrefix("text/csv") { return .csv }
        throw HTTPError(.unsupportedMediaType, detail: "Send an import as application/x-ndjson (one JSON object a line) or text/csv (a header row first).")
    }

    private static func isGzipped(_ request: Request) throws(HTTPError) -> Bool {
        guard let encoding = request.headerFields[.contentEncoding]?.lowercased().trimmingCharacters(in: .whitespaces), !encoding.isEmpty,
            encoding != "identity"
        else { return false }
        guard encoding == "gzip" || encoding == "x-gzip" else {
            throw HTTPError(.unsupportedMediaType, detail: "Content-Encoding \(encoding.prefix(32)) is not supported; send gzip or nothing.")
        }
        return true
    }
}

/// Feeds an import's body to its session as it arrives, inflating it first when it was sent
/// gzip-compressed: the body is never held whole.
enum ImportBody {
    /// Pieces larger than this go to the parser in parts, so a batch commits while the rest is
    /// still to parse (an in-process request's body comes as one piece).
    static let piece = 1 << 20

    static func feed(_ body: RequestBodyStream, gzipped: Bool, maxBytes: Int, to session: ImportSession) async throws {
        let inflater = gzipped ? GzipInflater(maxOutputBytes: maxBytes) : nil
        do {
            for try await chunk in body {
                for start in stride(from: 0, to: chunk.count, by: piece) {
                    let part = chunk.count <= piece ? chunk : Array(chunk[start..<min(start + piece, chunk.count)])
                    guard let inflater else {
                        try await session.feed(part)
                        continue
                    }
                    var inflated: [[UInt8]] = []
                    try inflater.feed(part) { inflated.append($0) }
                    for piece in inflated { try await session.feed(piece) }
                }
            }
            try inflater?.finish()
        } catch let failure as GzipInflater.Failure {
            body.abandon()
            throw HTTPError(failure == .tooLarge(limit: maxBytes) ? .contentTooLarge : .badRequest, detail: "\(failure) (import.maxBytes).")
        } catch let failure as RequestBodyError {
            throw HTTPError(.badRequest, detail: failure.description)
        } catch {
            body.abandon()
            throw error
        }
    }
}
