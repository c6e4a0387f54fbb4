import Foundation
import HTTP
import HTTPTesting
import HTTPTypes
import Testing

@testable import Signalbox

/// Issue 25, over a real server's sockets: an import made when no `/events` client listens
/// keeps its events unmade until a resume reads them, also after a client has come and gone.
/// Before, the worker that had served the client kept listening for the feed's life, and every
/// later import made every event for nobody (a tenth of an import's CPU).
@Suite(.timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct ImportEventsTests {
    static let schema = #"{"id": "sku", "fields": [{"name": "title", "type": "string", "search": true}]}"#

    @Test func anImportAfterTheLastEventsClientLeftMakesNoEventsUntilAResumeReadsThem() async throws {
        let service = try await CollectionEndpointsTests.makeService()
        try await service.router.withTestClient(.live) { client in
            #expect(try await CollectionEndpointsTests.send(client, .put, "/collections/shop", Self.schema).status == .created)
            let admin: HTTPFields = [.authorization: "Bearer \(CollectionEndpointsTests.key)"]  // `shop` is private
            let stream = try await client.stream("/events", headerFields: admin)
            let position = try #require(try await stream.next())
            stream.cancel()
            try await Self.untilNoLiveSubscriber(service.feed)

            let lines = (1...3).map { #"{"sku": "s\#($0)", "title": "thing \#($0)"}"# }.joined(separator: "\n")
            let imported = try await CollectionEndpointsTests.send(client, .post, "/collections/shop/documents", lines, type: "application/x-ndjson")
            #expect(imported.status == .ok, "\(imported.text)")
            // Before: 0, every event made though nobody listened.
            #expect(service.feed.unmadeChanges == 3)

            // A resume gets them, made now.
            var resume = admin
            resume[MinimumSequenceGate.lastEventID] = position.id ?? "0"
            let resumed = try await client.stream("/events", headerFields: resume)
            let events = try await resumed.next(3)
            #expect(events.map(\.event) == ["document.upserted", "document.upserted", "document.upserted"], "\(events)")
            #expect(events.map { $0.data.contains(#""id":"s1""#) } == [true, false, false])
            #expect(service.feed.unmadeChanges == 0)
            resumed.cancel()
        }
    }

    /// Polls until the server has let go of every `/events` stream (a closed connection gives
    /// the client nothing to await: the server notices it on its own).
    static func untilNoLiveSubscriber(_ feed: EventEndpoints.Feed) async throws {
        for _ in 0..<Int(TestTime.scaled(seconds: 10) * 50) {
            if !feed.hasLiveSubscribers { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the server still listens to the feed 10 s after its only client left")
    }
}
