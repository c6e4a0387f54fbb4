import HTTP
import HTTPTesting
import Rx
import Search
import Testing
@testable import Signalbox

/// `GET /events` from a live two-worker server over real sockets: clients that connect
/// (fresh, or resuming) while changes are being applied each get every change
/// from their start on, once, in order, whichever worker serves them.
@Suite struct EventEndpointsTests {
    static let lastChange: Int64 = 40

    @Test func clientsConnectingWhileChangesArriveGetEachChangeOnceInOrder() async throws {
        let index = SearchIndex(documents: [])
        let feed = EventEndpoints.Feed(lastSequence: 0, capacity: 100)
        let lookups = SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics())
        let applier = ChangeApplier(index: index, lookups: lookups, feed: feed, metrics: ServiceMetrics(), applied: 0)
        let router = Router()
        EventEndpoints(feed: feed, applier: applier, epoch: "e1", resumeWait: .seconds(5))
            .register(on: router)
        try await router.withTestClient(.live(ServerConfiguration(workerCount: 2))) { client in
            func apply(_ sequence: Int64) {
                applier.offer([ChangeApplier.Change(sequence: sequence, id: "d\(sequence)", document: Document(id: "d\(sequence)", name: "Town \(sequence)"), body: nil)])
            }
            for sequence in Int64(1)...4 { apply(sequence) }
            await Self.applied(applier, 4)

            // Fresh clients, and resumes missing several changes (their own chain) or one (the worker's).
            // Each request is on the wire before the next change is applied (raw connections: a
            // stream would wait for its head), so changes land while clients are being subscribed.
            var clients: [(connection: RawConnection, resumedAfter: Int64?)] = []
            var next: Int64 = 5
            for number in 0..<24 {
                let resumedAfter: Int64? = number % 3 == 0 ? nil : (number % 3 == 1 ? 1 : 3)
                let lastEventID = resumedAfter.map { "Last-Event-ID: \($0)\r\n" } ?? ""
                let connection = try client.connect(receiveTimeout: .seconds(10))
                try await connection.send("GET /events HTTP/1.1\r\nHost: x\r\n\(lastEventID)\r\n")
                clients.append((connection, resumedAfter))
                if next <= Self.lastChange { apply(next); next += 1 }  // while the client is being subscribed
            }
            while next <= Self.lastChange { apply(next); next += 1 }

            for (connection, resumedAfter) in clients {
                let ids = try await Self.eventIDs(connection, through: Self.lastChange)
                let first = try #require(ids.first)
                #expect(ids == Array(first...Self.lastChange), "ids \(ids)")
                if let resumedAfter { #expect(first == resumedAfter + 1, "resumed after \(resumedAfter): ids \(ids)") }
                connection.disconnect()
            }
            #expect(feed.sharedSubscriptionCount >= 1 && feed.sharedSubscriptionCount <= 2)
        }
    }

    /// The ids of the stream's blocks (`id: N` lines), in order, until `last` has come.
    static func eventIDs(_ connection: RawConnection, through last: Int64) async throws -> [Int64] {
        #expect(try await connection.readHead().status == 200)
        var ids: [Int64] = []
        while ids.last != last, let block = try await connection.readEventBlock() {
            for line in block.split(separator: "\n") where line.hasPrefix("id: ") {
                if let id = Int64(line.dropFirst(4)) { ids.append(id) }
            }
        }
        return ids
    }

    /// Completes when `applier` has applied `sequence`.
    static func applied(_ applier: ChangeApplier, _ sequence: Int64) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = applier.applied.asObservable().filter { $0 >= sequence }.take(1)
                .subscribe(onCompleted: { done.resume() })
        }
    }
}
