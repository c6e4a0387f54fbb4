import HTTP
import Search

/// Reads `q`, `limit`, `offset`, `country` and `min_rank` from a request, or fails with 400.
enum SearchParameters {
    static func query(from request: Request) throws(HTTPError) -> SearchQuery {
        guard let text = request.query["q"] else {
            throw HTTPError(.badRequest, detail: "The query parameter q is required.")
        }
        let countries = request.queryItems(named: "country")
            .flatMap { $0.split(separator: ",") }
            // ASCII only: "ß".uppercased() is "SS", which would pass for a country code.
            .map { $0.allSatisfy(\.isASCII) ? $0.uppercased() : String($0) }
        var minRank: Double?
        if let value = request.query["min_rank"] {
            guard let number = Double(value), number >= 0 else {
                throw HTTPError(.badRequest, detail: "min_rank must be a number of at least 0.")
            }
            minRank = number
        }
        let query = SearchQuery(
            text,
            limit: try integer(request, "limit", default: SearchQuery.Limits.defaultLimit),
            offset: try integer(request, "offset", default: 0),
            countries: countries,
            minRank: minRank)
        do {
            try query.validate()
        } catch {
            throw HTTPError(.badRequest, detail: error.description)
        }
        return query
    }

    private static func integer(_ request: Request, _ name: String, default value: Int) throws(HTTPError) -> Int {
        guard let text = request.query[name] else { return value }
        guard let number = Int(text) else {
            throw HTTPError(.badRequest, detail: "\(name) must be a whole number.")
        }
        return number
    }
}
