import Search

/// The embedded cities and their index, built once per test process.
enum Cities {
    static let documents: [Document] = {
        do {
            return try DefaultDataSet.load()
        } catch {
            fatalError("embedded data: \(error)")
        }
    }()

    static let index = SearchIndex(documents: documents)

    /// The first hit's name and country for `text`.
    static func top(_ text: String, countries: [String] = []) -> Hit? {
        index.search(SearchQuery(text, limit: 1, countries: countries)).hits.first
    }
}
