import Foundation
import Testing

@testable import Search

/// The relevance file: queries with the city that must come first, against the embedded data.
@Suite struct RelevanceTests {
    struct Case: CustomStringConvertible {
        var query: String
        var id: String
        var expected: String
        var description: String { "\(query) → \(expected)" }
    }

    static func cases() throws -> [Case] {
        let url = try #require(Bundle.module.url(forResource: "relevance", withExtension: "tsv", subdirectory: "Resources"))
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t").map(String.init)
            return fields.count >= 3 ? Case(query: fields[0], id: fields[1], expected: fields[2]) : nil
        }
    }

    @Test func atLeast95PercentHaveTheExpectedCityFirst() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 50)
        var misses: [String] = []
        for test in cases {
            let top = Cities.index.search(SearchQuery(test.query, limit: 1)).hits.first
            if top?.document.id != test.id { misses.append("\(test) (got \(top?.document.name ?? "nothing"))") }
        }
        let share = Double(cases.count - misses.count) / Double(cases.count)
        #expect(share >= 0.95, "first place \(Int(share * 100))%; misses: \(misses)")
        print("relevance: \(cases.count - misses.count)/\(cases.count) first; misses: \(misses)")
    }
}
