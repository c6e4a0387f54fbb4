import Foundation

/// Sends a collection's schema and files to the server, one request per chunk, and reports
/// each answer to the progress display.
struct CollectionImporter {
    let collection: String
    let address: ServerAddress
    let key: String?
    let progress: ImportProgress

    /// `PUT /collections/{name}` with the schema file: 201 created, 200 replaced.
    func putSchema(from path: String) throws(ImportFailure) {
        let body: [UInt8]
        do { body = Array(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw .unreadable("--schema \(path): \(error.localizedDescription)")
        }
        let answer = try PlainHTTPClient.request(
            "PUT", "/collections/\(collection)", headers: headers(contentType: "application/json"), body: body, to: address)
        switch answer.status {
        case 201: progress.note("collection \(collection) created")
        case 200: progress.note("collection \(collection): schema replaced (re-indexed in the background)")
        default: throw .refused(status: answer.status, detail: ProblemDetail.of(answer.body))
        }
    }

    func importFile(_ path: String, format: ImportFormat, gzipped: Bool, chunkBytes: Int) throws(ImportFailure) {
        let reader = try ImportFileReader(path: path, gzipped: gzipped)
        var chunker = ImportChunker(format: format, limit: chunkBytes)
        while let piece = try reader.next() {
            progress.read(piece.consumed)
            for chunk in try chunker.append(piece.bytes) {
                try post(chunk, of: path, format: format)
            }
        }
        if let last = chunker.finish() {
            try post(last, of: path, format: format)
        }
    }

    private func post(_ chunk: ImportChunk, of path: String, format: ImportFormat) throws(ImportFailure) {
        let answer = try PlainHTTPClient.request(
            "POST", "/collections/\(collection)/documents", headers: headers(contentType: format.contentType),
            body: chunk.body, to: address)
        guard answer.status == 200 else {
            throw .refused(status: answer.status, detail: ProblemDetail.of(answer.body))
        }
        guard let counts = try? JSONDecoder().decode(ImportAnswer.self, from: Data(answer.body)) else {
            throw .refused(status: answer.status, detail: "an answer that is not an import's: \(ProblemDetail.of(answer.body))")
        }
        progress.answered(file: path, bodyBytes: chunk.body.count, answer: counts, lineOffset: chunk.lineOffset)
    }

    private func headers(contentType: String) -> [(String, String)] {
        var headers = [("Content-Type", contentType), ("Accept", "application/json")]
        if let key { headers.append(("Authorization", "Bearer \(key)")) }
        return headers
    }
}
