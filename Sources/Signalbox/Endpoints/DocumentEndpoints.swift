import Foundation
import HTTP
import HTTPTypes
import Rx
import Search

/// `GET /documents/{id}` (a Maybe), `PUT` and `DELETE` (Singles of the write's receipt: 204 and `Signalbox-Seq`).
struct DocumentEndpoints {
    let documents: DocumentService
    let access: Access

    func register(on router: some RouteBuilder) {
        router.get("/documents/:id") { request -> Maybe<Document> in
            try access.checkCities(request, .documentsRead)
            return documents.document(id: request.parameters["id"] ?? "")
        }

        let writes = router.checking(access.requiring(.documentsWrite, collection: citiesCollection))
        writes.put("/documents/:id") { request -> Single<WriteReceipt> in
            let document = try DocumentInput.decode(request, id: request.parameters["id"] ?? "")
            return StoreProblem.write { try await documents.upsert(document) }
        }

        writes.delete("/documents/:id") { request -> Single<WriteReceipt> in
            let id = request.parameters["id"] ?? ""
            return StoreProblem.write { try await documents.delete(id: id) }
        }
    }
}

/// Documents answer as JSON, in the same shape `PUT` takes.
extension Document: ResponseEncodable {}

extension WriteReceipt: ResponseEncodable {
    /// The header that carries a write's sequence number; `Signalbox-Min-Seq` asks for it on reads.
    static let sequenceField = HTTPField.Name("Signalbox-Seq")!

    func response() throws -> Response {
        Response(status: .noContent, headerFields: [Self.sequenceField: String(sequence)])
    }
}

/// The body of `PUT /documents/{id}`: a document whose `id` may be left out.
struct DocumentInput: Decodable {
    var id: String?
    var name: String
    var alternateNames: [String]?
    var rank: Double?
    var attributes: [String: AttributeValue]?

    init(_ read: DocumentJSON) {
        (id, name, alternateNames, rank, attributes) = (read.id, read.name, read.alternateNames, read.rank, read.attributes)
    }

    /// Decodes and checks the body: 415 for a non-JSON type, 400 for malformed JSON,
    /// 422 for JSON that is not a valid document.
    static func decode(_ request: Request, id: String) throws(HTTPError) -> Document {
        if let type = request.headerFields.value(of: .contentType)?.lowercased(),
            !type.hasPrefix("application/json") && !type.contains("+json")
        {
            throw HTTPError(.unsupportedMediaType, detail: "Send the document as application/json.")
        }
        let input: DocumentInput
        do {
            // The plain reader where it answers (JSONDecoder cost 78,000 instructions a city); JSONDecoder
            // otherwise, which decides, with its errors, what the plain reader leaves to it.
            input =
                try DocumentJSON.read(request.body).map(DocumentInput.init)
                ?? JSONDecoder().decode(DocumentInput.self, from: Data(request.body))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw HTTPError(.badRequest, detail: "The body is not valid JSON.")
        } catch let error as DecodingError {
            throw HTTPError(.unprocessableContent, detail: Self.describe(error))
        } catch {
            throw HTTPError(.badRequest, detail: "The body is not valid JSON.")
        }
        if let bodyID = input.id, bodyID != id {
            throw HTTPError(.unprocessableContent, detail: "The body's id \(bodyID) differs from the path's id \(id).")
        }
        let document = Document(
            id: id, name: input.name, alternateNames: input.alternateNames ?? [], rank: input.rank ?? 0,
            attributes: input.attributes ?? [:])
        do {
            try document.validate()
        } catch {
            throw HTTPError(.unprocessableContent, detail: "\(error)")
        }
        return document
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, _): return "The field \(key.stringValue) is required."
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "The field \(path(context)) has the wrong type: \(context.debugDescription)"
        @unknown default: return "The body is not a valid document."
        }
    }
}
