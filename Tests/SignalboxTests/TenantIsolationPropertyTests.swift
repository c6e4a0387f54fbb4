import Base
import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Testing

@testable import Signalbox

/// A property of tenant tokens (issue 29): random documents, random disjoint filters and random
/// updates (moves between tenants, deletes) for two tenants with a stream each. Each tenant's
/// stream, its resume from the start and its final search are exactly what a model of its filter
/// says, so nothing of one tenant ever reaches the other.
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 2))))
struct TenantIsolationPropertyTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func nothingOfOneTenantReachesTheOther(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)  // a failing seed reruns the same way
        let setup = try await KeyAccessTests()
        #expect(try await setup.send(.put, "/collections/shop", KeyAccessTests.schema).status == .created)
        let key = try await setup.key(["search", "documents.read", "events"])

        // Tenant values 1...6 split at random between the two tenants (some belong to neither).
        var owner: [Int: Int] = [:]
        for value in 1...6 { owner[value] = [0, 1, 1, 2, 2][Int.random(in: 0..<5, using: &random)] }
        owner[1] = 1
        owner[2] = 2
        let tokens = try [1, 2].map { tenant -> String in
            let values = owner.filter { $0.value == tenant }.map(\.key).sorted()
            let filter =
                Bool.random(using: &random)
                ? "tenant IN [\(values.map(String.init).joined(separator: ", "))]"
                : values.map { "tenant = \($0)" }.joined(separator: " OR ")
            return try setup.token(key, rules: ["shop": ["filter": filter]])
        }
        var streams: [TestEventStream] = []
        var starts: [String] = []
        for token in tokens {
            let stream = try await setup.client.stream("/events", headerFields: [.authorization: "Bearer \(token)"])
            starts.append(try #require(try await stream.next()?.id))
            streams.append(stream)
        }

        var state: [String: Int] = [:]  // id → tenant value, as written
        var expected: [[String]] = [[], []]
        func record(_ id: String, before: Int?, after: Int?) {
            for tenant in [1, 2] {
                if let after, owner[after] == tenant {
                    expected[tenant - 1].append("document.upserted \(id)")
                } else if let before, owner[before] == tenant {
                    expected[tenant - 1].append("document.deleted \(id)")
                }
            }
        }
        for _ in 0..<60 {
            let id = "d\(Int.random(in: 0..<8, using: &random))"
            let before = state[id]
            if before != nil, Int.random(in: 0..<4, using: &random) == 0 {
                #expect(try await setup.send(.delete, "/collections/shop/documents/\(id)").status == .noContent)
                state[id] = nil
                record(id, before: before, after: nil)
            } else {
                let value = Int.random(in: 1...6, using: &random)
                try await setup.put(id, tenant: value)
                state[id] = value
                record(id, before: before, after: value)
            }
        }
        // A marker per tenant ends each stream's expected list.
        try await setup.put("end1", tenant: 1)
        try await setup.put("end2", tenant: 2)
        expected[0].append("document.upserted end1")
        expected[1].append("document.upserted end2")

        for tenant in [1, 2] {
            let seen = try await Self.events(streams[tenant - 1], until: "end\(tenant)")
            #expect(seen == expected[tenant - 1], "seed \(seed), tenant \(tenant), owners \(owner)")
            streams[tenant - 1].cancel()
            let resumed = try await setup.client.stream(
                "/events", headerFields: [.authorization: "Bearer \(tokens[tenant - 1])", .init("Last-Event-ID")!: starts[tenant - 1]])
            #expect(try await Self.events(resumed, until: "end\(tenant)") == expected[tenant - 1], "resume, seed \(seed), tenant \(tenant)")
            resumed.cancel()
            let found = try setup.ids(try await setup.send(.get, "/collections/shop/search?q=&limit=100", as: tokens[tenant - 1]))
            let modelled = Set(state.filter { owner[$0.value] == tenant }.map(\.key) + ["end\(tenant)"])
            #expect(found == modelled, "search, seed \(seed), tenant \(tenant)")
        }
    }

    /// `event id` of each change event up to the one of document `last`.
    static func events(_ stream: TestEventStream, until last: String) async throws -> [String] {
        var seen: [String] = []
        while let event = try await stream.next() {
            guard let kind = event.event, kind.hasPrefix("document.") else { continue }
            let object = try #require(JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
            let id = try #require(object["id"] as? String)
            seen.append("\(kind) \(id)")
            if id == last { break }
        }
        return seen
    }
}
