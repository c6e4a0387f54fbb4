import HTTP
import HTTPTypes
import Rx

/// `GET /events`: the change feed as a Signal over SSE, resumable with `Last-Event-ID`.
struct EventEndpoints {
    let feed: ChangeFeed

    func register(on router: Router) {
        // The feed's items are streamed as they are (no `map`, which would add an
        // operator and a share per client); each item says what bytes it is sent as.
        router.get("/events") { request -> Signal<ChangeFeed.Item> in
            let lastEventID = request.headerFields[Self.lastEventID].flatMap { Int64($0) }
            return feed.stream(from: lastEventID.map(ChangeFeed.Start.after) ?? .now)
        }
    }

    private static let lastEventID = HTTPField.Name("Last-Event-ID")!

    /// A change is sent as the bytes it was encoded to once, when it was made,
    /// so every client gets the same buffer; only a client's first block (its
    /// position, or a reset) is made for it.
    static func event(_ item: ChangeFeed.Item) -> EncodedEvent {
        switch item {
        case .change(let change):
            return change.encoded
        case .position(let sequence):
            return EncodedEvent(.lastEventID(String(sequence)))
        case .reset(let lastSequence):
            return EncodedEvent(ServerSentEvent(
                id: String(lastSequence), event: "reset",
                data: #"{"reason":"the events since your Last-Event-ID are no longer kept; reload"}"#))
        }
    }
}

extension ChangeFeed.Item: ServerSentEventConvertible {
    var encodedEvent: EncodedEvent { EventEndpoints.event(self) }
}
