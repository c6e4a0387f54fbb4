import Foundation

/// The server's answer to one import request (`POST /collections/{name}/documents`).
struct ImportAnswer: Decodable {
    /// One failed line, as the server lists it (the first 100 of a request).
    struct LineError: Decodable {
        var line: Int
        var id: String?
        var status: Int
        var detail: String

        private enum CodingKeys: String, CodingKey { case line, id, status, detail }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            line = try container.decode(Int.self, forKey: .line)
            status = try container.decode(Int.self, forKey: .status)
            detail = try container.decode(String.self, forKey: .detail)
            // A document's id is a string or an integer; a line that did not parse has none.
            id = (try? container.decodeIfPresent(String.self, forKey: .id))
                ?? (try? container.decodeIfPresent(Int.self, forKey: .id)).flatMap { $0.map(String.init) }
        }
    }

    var created: Int
    var updated: Int
    var failed: Int
    var errors: [LineError]
}

/// The `detail` of an RFC 9457 problem body, else the body itself (shortened).
enum ProblemDetail {
    static let shownBytes = 500

    static func of(_ body: [UInt8]) -> String {
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
           let detail = (object["detail"] as? String) ?? (object["title"] as? String) {
            return detail
        }
        let text = String(decoding: body.prefix(shownBytes), as: UTF8.self)
        return text.isEmpty ? "(no body)" : text
    }
}
