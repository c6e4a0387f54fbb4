import Base
import Rx
import Search
import Testing
@testable import Signalbox

@Suite struct SearchLookupsTests {
    static let cities = [
        Document(id: "1", name: "Lisbon", alternateNames: ["Lisboa"], rank: 500_000, attributes: ["countryCode": "PT"]),
        Document(id: "2", name: "Porto", rank: 230_000, attributes: ["countryCode": "PT"]),
        Document(id: "3", name: "Paris", rank: 2_100_000, attributes: ["countryCode": "FR"]),
    ]

    func makeLookups(ttl: Double = 60) -> (SearchIndex, SearchLookups) {
        let index = SearchIndex(documents: Self.cities)
        return (index, SearchLookups(index: index, maxEntries: 100, ttl: ttl, metrics: ServiceMetrics()))
    }

    func value(_ single: Single<SearchPayload>) async throws -> SearchPayload {
        try await withCheckedThrowingContinuation { continuation in
            _ = single.subscribe(
                onSuccess: { continuation.resume(returning: $0) },
                onFailure: { continuation.resume(throwing: $0) })
        }
    }

    @Test func concurrentIdenticalLookupsComputeOnce() async throws {
        let (_, lookups) = makeLookups()
        let totals = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 {
                group.addTask { try await value(lookups.first(SearchQuery("lis"))).total }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(totals == Array(repeating: 1, count: 200))
        #expect(lookups.computationCount == 1)
    }

    @Test func equivalentQueriesShareOneEntry() async throws {
        let (_, lookups) = makeLookups()
        _ = try await value(lookups.first(SearchQuery("Lisbo")))
        _ = try await value(lookups.first(SearchQuery("  LISBÔ")))
        #expect(lookups.count == 1)
        #expect(lookups.computationCount == 1)
    }

    @Test func aWriteThatAffectsAQueryIsSeenByTheNextLookup() async throws {
        let (index, lookups) = makeLookups()
        #expect(try await value(lookups.first(SearchQuery("porto"))).total == 1)
        let added = Document(id: "4", name: "Porto Alegre", rank: 1_400_000, attributes: ["countryCode": "BR"])
        index.upsert(added)
        lookups.apply(ChangeEvent(sequence: 1, kind: .upserted, documentID: "4", document: added, previous: nil))
        let after = try await value(lookups.first(SearchQuery("porto")))
        #expect(after.total == 2)
        #expect(String(decoding: after.hitsJSON, as: UTF8.self).contains("Porto Alegre"))
    }

    @Test func aWriteThatCannotAffectAQueryDoesNotRecompute() async throws {
        let (index, lookups) = makeLookups()
        _ = try await value(lookups.first(SearchQuery("paris")))
        let added = Document(id: "5", name: "Lagos", rank: 1, attributes: ["countryCode": "NG"])
        index.upsert(added)
        lookups.apply(ChangeEvent(sequence: 1, kind: .upserted, documentID: "5", document: added, previous: nil))
        _ = try await value(lookups.first(SearchQuery("paris")))
        #expect(lookups.computationCount == 1)
    }

    @Test func aChangeRefreshesExactlyTheCachedQueriesItAffects() async throws {
        let (index, lookups) = makeLookups()
        let queries = ["lis", "porto", "paris", "pa", "lisboa nova"].map { SearchQuery($0) }
        for query in queries { _ = try await value(lookups.first(query)) }
        #expect(lookups.computationCount == 5)

        let added = Document(id: "6", name: "Lisboa Nova", rank: 10, attributes: ["countryCode": "PT"])
        index.upsert(added)
        lookups.apply(ChangeEvent(sequence: 1, kind: .upserted, documentID: "6", document: added, previous: nil))
        for query in queries { _ = try await value(lookups.first(query)) }
        #expect(lookups.computationCount == 7) // "lis" and "lisboa nova"

        let paris = Self.cities[2]
        index.delete(id: paris.id)
        lookups.apply(ChangeEvent(sequence: 2, kind: .deleted, documentID: paris.id, document: nil, previous: paris))
        var totals: [Int] = []
        for query in queries { totals.append(try await value(lookups.first(query)).total) }
        #expect(lookups.computationCount == 9) // "paris" and "pa" ("porto" does not match "pa": p-o ≠ p-a)
        #expect(totals == [2, 1, 0, 0, 2]) // "lisboa nova" finds Lisbon (Lisboa) too
    }

    /// A run of changes (as the applier hands them over) refreshes every cached query any of
    /// them affects, by the document after or before, and none other.
    @Test func aRunRefreshesTheQueriesAnyOfItsChangesAffects() async throws {
        let (index, lookups) = makeLookups()
        lookups.apply([(document: Self.cities[0], previous: nil)])  // nothing cached: nothing to do
        let queries = ["lis", "porto", "paris", "berlin"].map { SearchQuery($0) }
        for query in queries { _ = try await value(lookups.first(query)) }
        #expect(lookups.computationCount == 4)
        let added = Document(id: "7", name: "Porto Santo", rank: 50_000, attributes: ["countryCode": "PT"])
        let paris = Self.cities[2]
        index.upsert(added)
        index.delete(id: paris.id)
        lookups.apply([(document: added, previous: nil), (document: nil, previous: paris)])
        var totals: [Int] = []
        for query in queries { totals.append(try await value(lookups.first(query)).total) }
        #expect(lookups.computationCount == 6)  // "porto" (the first change) and "paris" (the second's previous)
        #expect(totals == [1, 2, 0, 0])
    }

    @Test func theLiveDriverPushesFreshResults() async throws {
        let (index, lookups) = makeLookups()
        let driver = lookups.driver(for: SearchQuery("faro"))
        let totals = Locked<[Int]>([])
        let subscription = SingleAssignmentDisposable()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            subscription.setDisposable(driver.drive(onNext: { payload in
                let count = totals.withLock { totals in
                    totals.append(payload.total)
                    return totals.count
                }
                if count == 1 {
                    let added = Document(id: "6", name: "Faro", rank: 60_000, attributes: ["countryCode": "PT"])
                    index.upsert(added)
                    lookups.apply(ChangeEvent(sequence: 1, kind: .upserted, documentID: "6", document: added, previous: nil))
                } else if count == 2 {
                    done.resume()
                }
            }))
        }
        subscription.dispose()
        #expect(totals.withLock { $0 } == [0, 1])
    }
}
