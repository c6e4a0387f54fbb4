import Base
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
///
/// Every frame the stream sends is made here: a change's once, when it is published (its
/// ``FramedChange`` is what the feed keeps), so every client is sent the same buffer; a
/// client's first block (its position, or a reset) for that client alone.
struct EventEndpoints {
    /// The feed of `/events`: each change kept with its frame.
    typealias Feed = ChangeFeed<FramedChange>

    let feed: Feed
    let applier: ChangeApplier
    let epoch: String
    let resumeWait: RxTimeInterval
    /// Who may see which changes; nil: everyone sees everything (tests of the feed alone).
    var access: Access? = nil
    /// The collections served here: `?collection=` must name one of them.
    var collections = CollectionCatalog()

    func register(on router: some RouteBuilder) {
        // The feed's items are streamed as they are (no `map`, which would add an
        // operator and a share per client); each item says what bytes it is sent as.
        router.get("/events") { request -> Infallible<Feed.Item> in
            let lastEventID = request.headerFields[Self.lastEventID].flatMap { Int64($0) }
            let clientEpoch = request.headerFields[Self.epochField] ?? request.queryItems(named: "epoch").first
            let start: Feed.Start =
                if let clientEpoch, !clientEpoch.isEmpty, clientEpoch != epoch { .reset }
                else { lastEventID.map(Feed.Start.after) ?? .now }
            // `?collection=` narrows the stream to one collection's changes (a filter on this client's view).
            // A name no collection has is a 404, as on the collection's other endpoints, not a stream that stays empty.
            let collection = request.queryItems(named: "collection").first
            // The client's view: what its key or token may see (none to compute for most clients).
            let view = try access.flatMap { access throws(HTTPError) -> EventView? in
                let grant = try access.grant(request, .events, collection: collection)
                return grant.seesEverything ? nil : EventView(grant: grant, collections: collections, isPublic: access.isPublicCollection)
            }
            if let collection, collections.named(collection) == nil {
                throw CollectionEndpoints.problem(CollectionError.noSuchCollection(collection))
            }
            guard let lastEventID, lastEventID > applier.applied.value else {
                // The router subscribes at once, on this worker: the worker's clients share one
                // subscription to the feed, and a change is one hop onto the worker, not one per client.
                var stream = feed.workerStream(from: start, deliveringOn: request.eventScheduler)
                if let collection { stream = stream.filter { $0.belongs(to: collection) } }
                if let view { stream = stream.compactMap(view.view) }
                return stream
            }
            // Resuming on a replica that is behind: wait for the id, then replay (or reset) as usual.
            // Subscribed later, on whatever thread applies the id, so a chain of its own,
            // delivering on the connection's queue too.
            return SharingScheduler.building(deliveringOn: request.eventScheduler) {
                applier.applied(atLeast: lastEventID, within: resumeWait)
                    .asObservable()
                    .catch { _ in .empty() }
                    .asCompletable()
                    .andThen(feed.stream(from: start).asObservable())
                    .filter { item in collection.map(item.belongs) ?? true }
                    .compactMap { item -> Feed.Item? in
                        guard let view else { return item }
                        return view.view(item)
                    }
                    .asSignal(onErrorSignalWith: .empty())
            }.asInfallible()
        }
    }

    static let epochField = MinimumSequenceGate.epochField
    private static let lastEventID = MinimumSequenceGate.lastEventID

    /// A change as `/events` sends it: `id: <sequence>`, `event: <kind>`, `data: <the event's JSON>`.
    static func frame(_ event: ChangeEvent) -> EncodedEvent {
        EncodedEvent(ServerSentEvent(id: String(event.sequence), event: event.kind.rawValue, data: String(decoding: event.json, as: UTF8.self)))
    }

    /// The frame of one item of a client's stream: a change's own (made once), or the client's
    /// position or reset, made for it.
    static func frame(_ item: Feed.Item) -> EncodedEvent {
        switch item {
        case .change(let change):
            return change.frame
        case .position(let sequence):
            return EncodedEvent(.lastEventID(String(sequence)))
        case .reset(let lastSequence):
            return EncodedEvent(ServerSentEvent(
                id: String(lastSequence), event: "reset",
                data: #"{"reason":"the events since your Last-Event-ID are no longer kept; reload"}"#))
        }
    }

    /// A change with its frame, made once, when a first client needs it: what the feed keeps
    /// and hands to every client. One object, so a copy is one retain.
    final class FramedChange: FeedChange {
        let sequence: Int64
        let collection: String
        /// Made on first use, not when the change is published: an import publishes a million
        /// changes on the apply queue, and framing each (its JSON, escaped for SSE) there was 9 %
        /// of the import's CPU, for frames no client asked for.
        private let framed = Locked<EncodedEvent?>(nil)
        /// The change itself, for a client's view that must judge its documents (``EventView``).
        let event: ChangeEvent
        /// Its documents prepared for tenant filters, and each token's verdict, once for every client (``ChangeCandidates``).
        let candidates = ChangeCandidates()

        /// `document.deleted` for this change's document, as a tenant it took out of its filter is
        /// sent it: made once, when a first client needs it.
        var deleted: FramedChange {
            candidates.deleted {
                FramedChange(ChangeEvent(
                    sequence: sequence, kind: .deleted, collection: collection, documentID: event.documentID, document: nil, previous: nil))
            }
        }

        init(_ event: ChangeEvent) {
            self.event = event
            sequence = event.sequence
            collection = event.collection
        }

        /// The change's SSE frame (`id`, `event`, `data`), the same bytes for every client.
        var frame: EncodedEvent {
            if let made = framed.withLock({ $0 }) { return made }
            let made = EventEndpoints.frame(event)
            return framed.withLock { frame in
                // Two clients may frame it at once: the first one kept is every client's.
                if frame == nil { frame = made }
                return frame ?? made
            }
        }

        static func == (lhs: FramedChange, rhs: FramedChange) -> Bool {
            lhs === rhs || (lhs.sequence == rhs.sequence && lhs.frame == rhs.frame)
        }
    }
}

extension ChangeFeed.Item: ServerSentEventConvertible where Change == EventEndpoints.FramedChange {
    var encodedEvent: EncodedEvent { EventEndpoints.frame(self) }
}

extension ChangeFeed.Item where Change == EventEndpoints.FramedChange {
    /// Whether a client of `collection` alone gets this item: its changes, and every position or reset.
    func belongs(to collection: String) -> Bool {
        if case .change(let change) = self { return change.collection == collection }
        return true
    }
}
