import Base
import HTTP
import HTTPTypes
import Rx
import Synchronization

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
                // The client's choice runs in the feed's own filter; only a tenant token's view,
                // which may send a `document.deleted` in a change's place, is an operator of its own.
                let stream = feed.workerStream(
                    from: start, deliveringOn: request.eventScheduler, admitting: Self.admission(collection: collection, view: view))
                guard let view, !view.judgesCollectionsOnly else { return stream }
                return stream.compactMap(view.view)
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

    /// What one client's stream lets through before any view makes items for it: its
    /// `?collection=`'s changes, and what its holder may see when that depends on the
    /// collection alone. Nil when the client takes everything.
    private static func admission(collection: String?, view: EventView?) -> (@Sendable (Feed.Item) -> Bool)? {
        let judged = view.flatMap { $0.judgesCollectionsOnly ? $0 : nil }
        switch (collection, judged) {
        case (nil, nil): return nil
        case (let collection?, nil): return { $0.belongs(to: collection) }
        case (nil, let view?): return { view.admits($0) }
        case (let collection?, let view?): return { $0.belongs(to: collection) && view.admits($0) }
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
        /// of the import's CPU, for frames no client asked for. Held retained here and read
        /// without a lock: every delivery to every client reads it, on every worker.
        private let framed = Atomic<Unmanaged<EncodedEvent>?>(nil)
        /// The change itself, for a client's view that must judge its documents (``EventView``).
        let event: ChangeEvent
        /// Its documents prepared for tenant filters, and each token's verdict, once for every client (``ChangeCandidates``).
        let candidates = ChangeCandidates()
        /// Whether its collection is public, asked once for every client (0: not yet asked,
        /// 1: no, 2: yes): the catalog's answer takes two locks and a schema's copy, per client
        /// that was about 700 instructions a delivery.
        private let publicVerdict = Atomic<UInt8>(0)

        /// Whether the change's collection is public, as `isPublic` says the first time a
        /// client asks; every later client of this change gets that answer.
        func isPublic(_ isPublic: (String) -> Bool) -> Bool {
            switch publicVerdict.load(ordering: .relaxed) {
            case 1: return false
            case 2: return true
            default:
                let verdict = isPublic(collection)
                publicVerdict.store(verdict ? 2 : 1, ordering: .relaxed)
                return verdict
            }
        }

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

        deinit { framed.load(ordering: .acquiring)?.release() }

        /// The change's SSE frame (`id`, `event`, `data`), the same bytes for every client.
        var frame: EncodedEvent {
            if let made = framed.load(ordering: .acquiring) { return made.takeUnretainedValue() }
            let made = Unmanaged.passRetained(EventEndpoints.frame(event))
            let (exchanged, kept) = framed.compareExchange(expected: nil, desired: made, ordering: .acquiringAndReleasing)
            guard !exchanged, let kept else { return made.takeUnretainedValue() }
            // Two clients framed it at once: the first one kept is every client's.
            made.release()
            return kept.takeUnretainedValue()
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
