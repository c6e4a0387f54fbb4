import Base
import Foundation
import HTTP
import Search
import Testing
@testable import Signalbox

/// A change's JSON is encoded once, when it is made, from the bytes the store keeps; `/events`
/// frames it once, and every client is sent that frame.
@Suite struct ChangeEventTests {
    /// What `/events` sent before events were encoded once: `JSONEncoder` per client.
    func encodedPerClient(_ change: ChangeEvent) -> String {
        struct Body: Encodable {
            let collection: String
            let id: String
            let document: Document?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = String(decoding: try! encoder.encode(Body(collection: change.collection, id: change.documentID, document: change.document)), as: UTF8.self)
        return String(decoding: ServerSentEvent(id: String(change.sequence), event: change.kind.rawValue, data: data).encoded, as: UTF8.self)
    }

    func stored(_ document: Document) throws -> Data {
        try JSONCoding.encoder.encode(document)
    }

    func frame(_ change: ChangeEvent) -> String {
        String(decoding: EventEndpoints.FramedChange(change).frame.block, as: UTF8.self)
    }

    @Test func theFrameIsTheSameBytesAsEncodingPerClient() throws {
        let ids = ["paris", "a/b \"quoted\" \\ back", "tab\tnew\nline\u{1}", "Zürich – 東京 🚉"]
        for (index, id) in ids.enumerated() {
            let document = Document(id: id, name: "Name \(id)")
            let sequence = Int64(index + 1)
            let upsert = ChangeEvent(sequence: sequence, kind: .upserted, documentID: id, document: document, previous: nil, storedBody: try stored(document))
            #expect(frame(upsert) == encodedPerClient(upsert))
            let unstored = ChangeEvent(sequence: sequence, kind: .upserted, documentID: id, document: document, previous: nil)
            #expect(unstored.json == upsert.json)
            let delete = ChangeEvent(sequence: sequence + 10, kind: .deleted, documentID: id, document: nil, previous: document)
            #expect(frame(delete) == encodedPerClient(delete))
        }
    }

    @Test func everyClientIsSentTheChangesOwnFrame() async {
        let feed = EventEndpoints.Feed(lastSequence: 2, capacity: 4)
        feed.publish(ChangeEvent(sequence: 3, kind: .deleted, documentID: "x", document: nil, previous: nil))
        var frames: [EncodedEvent] = []
        for _ in 0..<3 {
            let items = await firstItems(1, of: feed.stream(from: .after(2)))
            frames += items.map(\.encodedEvent)
        }
        #expect(frames.count == 3)
        for frame in frames { #expect(frame === frames[0]) }
        #expect(String(decoding: frames[0].block, as: UTF8.self).hasPrefix("id: 3\nevent: document.deleted\n"))
        #expect(String(decoding: EventEndpoints.frame(.position(7)).block, as: UTF8.self) == "id: 7\n\n")
    }
}
