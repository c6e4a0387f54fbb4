import Foundation
import HTTP
import Search
import Testing
@testable import Signalbox

/// A change is encoded for `/events` once, when it is made, from the bytes the store keeps.
@Suite struct ChangeEventTests {
    /// What `/events` sent before events were encoded once: `JSONEncoder` per client.
    func encodedPerClient(_ change: ChangeEvent) -> String {
        struct Body: Encodable {
            let id: String
            let document: Document?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = String(decoding: try! encoder.encode(Body(id: change.documentID, document: change.document)), as: UTF8.self)
        return String(decoding: ServerSentEvent(id: String(change.sequence), event: change.kind.rawValue, data: data).encoded, as: UTF8.self)
    }

    func stored(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    @Test func theEventIsTheSameBytesAsEncodingPerClient() throws {
        let ids = ["paris", "a/b \"quoted\" \\ back", "tab\tnew\nline\u{1}", "Zürich – 東京 🚉"]
        for (index, id) in ids.enumerated() {
            let document = Document(id: id, name: "Name \(id)")
            let sequence = Int64(index + 1)
            let upsert = ChangeEvent(sequence: sequence, kind: .upserted, documentID: id, document: document, previous: nil, storedBody: try stored(document))
            #expect(String(decoding: upsert.encoded.block, as: UTF8.self) == encodedPerClient(upsert))
            let unstored = ChangeEvent(sequence: sequence, kind: .upserted, documentID: id, document: document, previous: nil)
            #expect(unstored.encoded == upsert.encoded)
            let delete = ChangeEvent(sequence: sequence + 10, kind: .deleted, documentID: id, document: nil, previous: document)
            #expect(String(decoding: delete.encoded.block, as: UTF8.self) == encodedPerClient(delete))
        }
    }

    @Test func everyClientIsSentTheChangesOwnBytes() {
        let change = ChangeEvent(sequence: 3, kind: .deleted, documentID: "x", document: nil, previous: nil)
        #expect(EventEndpoints.event(.change(change)) === change.encoded)
        #expect(String(decoding: EventEndpoints.event(.position(7)).block, as: UTF8.self) == "id: 7\n\n")
    }
}
