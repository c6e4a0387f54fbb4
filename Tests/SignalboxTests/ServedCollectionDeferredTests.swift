import Base
import Dispatch
import Rx
import Testing

@testable import Search
@testable import Signalbox

/// The cities' writes reach their collection index in batches (`ServedCollection.applyDeferred`):
/// held until the next read while nothing listens, applied at once while a live query does, and a
/// live query made while writes are held starts from a result that has them.
@Suite struct ServedCollectionDeferredTests {
    private static let timers = DispatchQueue(label: "served-collection-deferred-tests.timers")

    static func city(_ id: String, _ name: String) -> CollectionChange {
        .upsert(CitiesCollection.document(Document(id: id, name: name, rank: 10, attributes: ["countryCode": "PT"])))
    }

    static func cities() -> ServedCollection {
        ServedCollection(name: "cities", schema: CitiesCollection.schema, index: CitiesCollection.index([]), isBuiltIn: true)
    }

    /// The totals of the first `count` results a live query sends; `after` runs once the first came.
    /// Those sent within `limit` if fewer (a write the query never heard of fails the test, not hangs it).
    static func totals(
        of driver: Driver<CollectionPayload>, count: Int, limit: DispatchTimeInterval = .seconds(30), after: @escaping @Sendable () -> Void
    ) async -> [Int] {
        let totals = Locked<[Int]>([])
        let subscription = SingleAssignmentDisposable()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let pending = Locked<CheckedContinuation<Void, Never>?>(continuation)
            let finish: @Sendable () -> Void = { pending.withLock { $0.take() }?.resume() }
            timers.asyncAfter(deadline: .now() + limit, execute: finish)
            subscription.setDisposable(driver.drive(onNext: { payload in
                let seen = totals.withLock { totals in
                    totals.append(payload.result.total)
                    return totals.count
                }
                if seen == 1 { after() }
                if seen == count { finish() }
            }))
        }
        subscription.dispose()
        return totals.withLock { $0 }
    }

    @Test func writesAreHeldUntilTheNextReadWhileNoLiveQueryListens() {
        let collection = Self.cities()
        collection.applyDeferred([Self.city("1", "Faro")], through: 1)
        collection.applyDeferred([Self.city("2", "Fatima"), .delete(id: "1")], through: 2)
        #expect(collection.index.heldChanges == 3)
        let found = collection.lookups.search(CollectionQuery(text: "fa"))
        #expect(found.result.hits.map(\.id) == ["2"] && found.indexVersion == 1)
        #expect(collection.index.heldChanges == 0 && collection.index.sequence == 2)
    }

    @Test func aLiveQueryHearsEachWriteAsItIsApplied() async throws {
        let collection = Self.cities()
        let driver = try collection.lookups.driver(for: CollectionQuery(text: "faro"))
        let totals = await Self.totals(of: driver, count: 3) {
            collection.applyDeferred([Self.city("1", "Faro")], through: 1)
            #expect(collection.index.heldChanges == 0)
            // Renamed: it leaves the result, which only its previous version tells.
            collection.applyDeferred([Self.city("1", "Lagos")], through: 2)
        }
        #expect(totals == [0, 1, 0])
    }

    /// Writes held before a live query is made are in its first result; those after it reach it.
    @Test func aLiveQueryMadeWhileWritesAreHeldStartsWithThem() async throws {
        let collection = Self.cities()
        collection.applyDeferred([Self.city("1", "Faro"), Self.city("2", "Faro Novo")], through: 2)
        let driver = try collection.lookups.driver(for: CollectionQuery(text: "faro"))
        let totals = await Self.totals(of: driver, count: 2) {
            collection.applyDeferred([.delete(id: "2")], through: 3)
        }
        #expect(totals == [2, 1])
    }
}
