import Foundation
import HTTP
import Search

/// Reads `q`, `limit`, `offset`, `country` and `min_rank` from a request, or fails with 400.
enum SearchParameters {
    static let maxQueryLength = 256
    static let maxLimit = 100
    static let maxOffset = 10_000

    static func query(from request: Request) throws(HTTPError) -> SearchQuery {
        guard let text = request.query["q"] else {
            throw HTTPError(.badRequest, detail: "The query parameter q is required.")
        }
        guard text.unicodeScalars.count <= maxQueryLength else {
            throw HTTPError(.badRequest, detail: "q is longer than \(maxQueryLength) characters.")
        }
        let limit = try integer(request, "limit", default: 10, in: 1...maxLimit)
        let offset = try integer(request, "offset", default: 0, in: 0...maxOffset)
        var countries: [String] = []
        for value in request.queryItems(named: "country") {
            for code in value.split(separator: ",") {
                let code = code.trimmingCharacters(in: .whitespaces).uppercased()
                guard code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                    throw HTTPError(.badRequest, detail: "country takes ISO 3166-1 alpha-2 codes such as FR or BR; got \(code).")
                }
                countries.append(code)
            }
        }
        var minRank: Double?
        if let text = request.query["min_rank"] {
            guard let value = Double(text), value.isFinite, value >= 0 else {
                throw HTTPError(.badRequest, detail: "min_rank must be a number of at least 0.")
            }
            minRank = value
        }
        return SearchQuery(text: text, limit: limit, offset: offset, countries: countries, minRank: minRank)
    }

    private static func integer(_ request: Request, _ name: String, default value: Int, in range: ClosedRange<Int>) throws(HTTPError) -> Int {
        guard let text = request.query[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw HTTPError(.badRequest, detail: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }
}
