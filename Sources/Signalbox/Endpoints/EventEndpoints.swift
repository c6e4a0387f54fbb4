import Foundation
import HTTP
import HTTPTypes
import Rx
import Search

/// `GET /events`: the change feed as a Signal over SSE, resumable with `Last-Event-ID` on any replica.
///
/// Event ids are the store's sequence numbers. A replica that has not yet applied the
/// client's `Last-Event-ID` waits for it (up to `resumeWait`) before it replays what
/// followed. A client that also sends the store's epoch (`Signalbox-Epoch`, or `?epoch=`
/// for EventSource, which cannot set headers) of another store life gets a `reset`.
struct EventEndpoints {
    let feed: ChangeFeed
    let applier: ChangeApplier
    let epoch: String
    let resumeWait: RxTimeInterval

    func register(on router: Router) {
        router.get("/events") { request -> Signal<ServerSentEvent> in
            let lastEventID = request.headerFields[Self.lastEventID].flatMap { Int64($0) }
            let clientEpoch = request.headerFields[Self.epochField] ?? request.queryItems(named: "epoch").first
            let start: ChangeFeed.Start =
                if let clientEpoch, !clientEpoch.isEmpty, clientEpoch != epoch { .reset }
                else { lastEventID.map(ChangeFeed.Start.after) ?? .now }
            let stream = feed.stream(from: start).map(Self.event)
            guard let lastEventID, lastEventID > applier.applied.value else { return stream }
            // Resuming on a replica that is behind: wait for the id, then replay (or reset) as usual.
            return applier.applied(atLeast: lastEventID, within: resumeWait)
                .asObservable()
                .catch { _ in .empty() }
                .asCompletable()
                .andThen(stream.asObservable())
                .asSignal(onErrorSignalWith: .empty())
        }
    }

    static let epochField = HTTPField.Name("Signalbox-Epoch")!
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
