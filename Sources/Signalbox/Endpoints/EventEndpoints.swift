import Foundation
import HTTP
import HTTPTypes
import Rx
import Search

/// `GET /events`: the change feed as a Signal over SSE, resumable with `Last-Event-ID`.
struct EventEndpoints {
    let feed: ChangeFeed

    func register(on router: Router) {
        router.get("/events") { request -> Signal<ServerSentEvent> in
            let lastEventID = request.headerFields[Self.lastEventID].flatMap { Int64($0) }
            return feed.stream(from: lastEventID.map(ChangeFeed.Start.after) ?? .now).map(Self.event)
        }
    }

    private static let lastEventID = HTTPField.Name("Last-Event-ID")!

    static func event(_ item: ChangeFeed.Item) -> ServerSentEvent {
        switch item {
        case .change(let change):
            let body = ChangeBody(id: change.documentID, document: change.document)
            let data = (try? encoder.encode(body)).map { String(decoding: $0, as: UTF8.self) } ?? #"{}"#
            return ServerSentEvent(id: String(change.sequence), event: change.kind.rawValue, data: data)
        case .position(let sequence):
            return .lastEventID(String(sequence))
        case .reset(let lastSequence):
            return ServerSentEvent(
                id: String(lastSequence), event: "reset",
                data: #"{"reason":"the events since your Last-Event-ID are no longer kept; reload"}"#)
        }
    }

    private struct ChangeBody: Encodable {
        let id: String
        let document: Document?
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
