import HTTP
import HTTPTypes
import Rx

/// `GET /events`: the change feed as a Signal over SSE, resumable with `Last-Event-ID` on any replica.
/// Each client gets its own `Infallible` view of the Signal its worker's clients share (where it
/// resumes, what it already has).
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

    func register(on router: some RouteBuilder) {
        // The feed's items are streamed as they are (no `map`, which would add an
        // operator and a share per client); each item says what bytes it is sent as.
        router.get("/events") { request -> Infallible<ChangeFeed.Item> in
            let lastEventID = request.headerFields[Self.lastEventID].flatMap { Int64($0) }
            let clientEpoch = request.headerFields[Self.epochField] ?? request.queryItems(named: "epoch").first
            let start: ChangeFeed.Start =
                if let clientEpoch, !clientEpoch.isEmpty, clientEpoch != epoch { .reset }
                else { lastEventID.map(ChangeFeed.Start.after) ?? .now }
            guard let lastEventID, lastEventID > applier.applied.value else {
                // The router subscribes at once, on this worker: the worker's clients share one
                // subscription to the feed, and a change is one hop onto the worker, not one per client.
                return feed.workerStream(from: start)
            }
            // Resuming on a replica that is behind: wait for the id, then replay (or reset) as usual.
            // Subscribed later, on whatever thread applies the id, so a chain of its own.
            let stream = feed.stream(from: start)
            return applier.applied(atLeast: lastEventID, within: resumeWait)
                .asObservable()
                .catch { _ in .empty() }
                .asCompletable()
                .andThen(stream.asObservable())
                .asSignal(onErrorSignalWith: .empty())
                .asInfallible()
        }
    }

    static let epochField = MinimumSequenceGate.epochField
    private static let lastEventID = MinimumSequenceGate.lastEventID

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
