import Base
import DequeModule
import Foundation
import Rx
import Synchronization

/// The change feed: a `Signal` of every change (shared upstream, no replay)
/// and, beside it, a bounded history that serves `Last-Event-ID` resumes.
///
/// Each change is kept as a `Change`, made once when the change is published and shared by
/// every subscriber: `/events` keeps the change's server-sent-event frame there, so thousands
/// of clients are sent one buffer.
final class ChangeFeed<Change: FeedChange>: ChangePublisher {
    /// What a subscriber gets first when it resumes.
    enum Start: Equatable {
        /// Only what happens from now on (a fresh client).
        case now
        /// Everything after this event id, if the history still holds it.
        case after(Int64)
        /// The client's position means nothing here (another store's epoch): a reset, then live changes.
        case reset
    }

    /// What one client receives: missed events, a reset, or live changes.
    enum Item: Sendable, Equatable {
        case change(Change)
        /// The history no longer holds what the client missed: it should reload its state.
        case reset(lastSequence: Int64)
        /// Where the stream starts when nothing was replayed, so a client that reconnects
        /// before any change still resumes from here.
        case position(Int64)
    }

    /// One change the history keeps: made, or still a run's to make (``PendingEvents``).
    private enum Kept {
        case made(Change)
        case pending(PendingEvents, offset: Int)

        var sequence: Int64 {
            switch self {
            case .made(let change): change.sequence
            case .pending(let run, let offset): run.sequences[offset]
            }
        }
    }

    private struct State {
        var history: Deque<Kept> = []
        var lastSequence: Int64
        /// The live changes as each delivery scheduler's clients share them (see ``workerStream(from:deliveringOn:)``).
        var hubs: [ObjectIdentifier: Hub] = [:]
    }

    /// One subscription to the live changes for all the clients of one
    /// delivery scheduler (an HTTP worker): a change costs one hop onto the
    /// worker, where the `Signal`'s share hands it to each client in turn,
    /// instead of one Rx chain and one Dispatch hop per client.
    ///
    /// Connected to the relay while it has clients, and no longer: once the last one
    /// has gone, a run is published with nobody listening, and its events are made
    /// only if a resume reads them (``PendingEvents``; an import paid for every
    /// event again once any client had come). Each client's snapshot connects it
    /// under the feed's lock (``bridge()``), so a change published after the snapshot is
    /// always queued for the worker after it, though the client subscribes later.
    private final class Hub: Sendable {
        let changes: Signal<Item>
        let scheduler: any SchedulerType

        init(relay: PublishRelay<Item>, scheduler: any SchedulerType) {
            changes = SharingScheduler.building(deliveringOn: scheduler) { relay.asSignal() }
            self.scheduler = scheduler
        }

        /// Holds the connection from a client's snapshot (made under the feed's lock) until the
        /// client, subscribing on the worker's queue, holds it: let go in the worker's next turn.
        func bridge() -> Disposable {
            changes.emit()
        }

        func letGo(_ bridge: Disposable) {
            _ = scheduler.schedule(()) { _ in
                bridge.dispose()
                return Disposables.create()
            }
        }
    }

    /// At most this many hubs (a server has one scheduler per worker); a
    /// client of any further scheduler gets a chain of its own.
    private static var maximumHubs: Int { 64 }

    /// Live changes and resets, shared by every client. Not replayed.
    private let relay = PublishRelay<Item>()
    private let state: Locked<State>
    private let capacity: Int

    /// - Parameters:
    ///   - lastSequence: the id of the latest change already stored (from a previous run).
    ///   - capacity: how many events the history keeps.
    ///   - history: the store's newest changes, oldest first, ending at `lastSequence`: a feed
    ///     that starts with them serves resumes from before it started.
    init(lastSequence: Int64, capacity: Int, history: [ChangeEvent] = []) {
        var state = State(lastSequence: lastSequence)
        state.history = Deque(Self.contiguousTail(of: history, endingAt: lastSequence).suffix(capacity).map { .made(Change($0)) })
        self.state = Locked(state)
        self.capacity = capacity
    }

    /// The longest run of `events` that ends at `last` with consecutive ids: only a gap-free
    /// history may serve a resume.
    private static func contiguousTail(of events: [ChangeEvent], endingAt last: Int64) -> ArraySlice<ChangeEvent> {
        guard events.last?.sequence == last else { return [] }
        var start = events.endIndex - 1
        while start > events.startIndex, events[start - 1].sequence == events[start].sequence - 1 { start -= 1 }
        return events[start...]
    }

    /// How many schedulers' clients share a subscription (one per HTTP worker that has had a client).
    var sharedSubscriptionCount: Int { state.withLock { $0.hubs.count } }

    /// Whether any client listens to the live changes now (a run published now has its events made at once).
    var hasLiveSubscribers: Bool { relay.hasObservers }

    /// How many changes the history keeps whose events nobody has made yet (``PendingEvents``).
    var unmadeChanges: Int {
        state.withLock { state in
            state.history.reduce(0) { count, kept in
                if case .pending = kept { return count + 1 }
                return count
            }
        }
    }

    /// Records `event` and sends it to every subscriber. Called by the single writer, in sequence order.
    func publish(_ event: ChangeEvent) {
        let change = Change(event)  // once, outside the lock, for every subscriber
        state.withLock { state in
            state.history.append(.made(change))
            if state.history.count > capacity { state.history.removeFirst(state.history.count - capacity) }
            state.lastSequence = change.sequence
            // Inside the lock, so a subscriber that snapshots the history
            // either sees this change there or receives it from the relay.
            relay.accept(.change(change))
        }
    }

    /// Records `events` (in sequence order) and sends each to every subscriber, as ``publish(_:)``
    /// each, under one hold of the lock: the history is trimmed once, not once per event (an
    /// import's batch is thousands of events, and the generic history's `removeFirst` cost more
    /// than the rest of an event).
    func publish(_ events: [ChangeEvent]) {
        guard let last = events.last else { return }
        let changes = events.map { Change($0) }  // outside the lock, as publish(_:) makes them
        state.withLock { state in
            let kept = changes.suffix(capacity)
            let excess = state.history.count + kept.count - capacity
            if excess > 0 { state.history.removeFirst(min(excess, state.history.count)) }
            state.history.append(contentsOf: kept.map(Kept.made))
            state.lastSequence = last.sequence
            for change in changes { relay.accept(.change(change)) }
        }
    }

    /// Records `run`'s changes (in sequence order) as publishing their events does, but
    /// makes their events only if something reads them: with no live subscriber the history
    /// keeps the run itself, and a client that resumes into it gets its events made then (once,
    /// kept for the next). With one, every event is made and sent as before.
    func publish(_ run: PendingEvents) {
        guard let last = run.sequences.last else { return }
        let kept = state.withLock { state -> Bool in
            // Under the lock, as every subscription to the relay is made: a subscriber that comes
            // after this finds the run in the history; one that came before is served below.
            guard !relay.hasObservers else { return false }
            let kept = min(run.count, capacity)
            let excess = state.history.count + kept - capacity
            if excess > 0 { state.history.removeFirst(min(excess, state.history.count)) }
            for offset in (run.count - kept)..<run.count { state.history.append(.pending(run, offset: offset)) }
            state.lastSequence = last
            return true
        }
        // This is the single writer: nothing is published between the two holds of the lock.
        if !kept { publish(run.events()) }
    }

    /// Continues at `sequence` after changes that were applied without events (a replica
    /// that caught up from the documents because the change log no longer held what it
    /// missed): every client gets a reset, and the history becomes the log's newest changes
    /// (`history`, ending at `sequence`), so later resumes the log can serve are served.
    func restart(at sequence: Int64, history: [ChangeEvent] = []) {
        let kept = Self.contiguousTail(of: history, endingAt: sequence).suffix(capacity).map { Kept.made(Change($0)) }
        state.withLock { state in
            state.history = Deque(kept)
            state.lastSequence = sequence
            relay.accept(.reset(lastSequence: sequence))
        }
    }

    /// The stream for one `/events` client: what it missed (or a reset), then live changes.
    ///
    /// Live changes come from the one shared ``changes`` upstream; the
    /// missed ones from the history, taken under the same lock as ``publish``
    /// so nothing falls between the two and nothing comes twice. It may be
    /// subscribed on any thread.
    func stream(from start: Start) -> Signal<Item> {
        Observable<Item>.create { [self] observer in
            let subscription = SingleAssignmentDisposable()
            state.withLock { state in
                for item in Self.firstItems(from: start, &state) { observer.onNext(item) }
                let delivered = ClientPosition(state.lastSequence)
                subscription.setDisposable(
                    relay.asObservable()
                        .filter { item in delivered.admits(item) }
                        .subscribe(observer))
            }
            return subscription
        }
        .asSignal(onErrorSignalWith: .empty())
    }

    /// The stream for one `/events` client of an HTTP worker: the same items
    /// as ``stream(from:)``, but the live changes come from the hub of
    /// `scheduler` (the worker's: the request's `eventScheduler`), shared by
    /// all its clients, and delivered there.
    ///
    /// Subscribe on that scheduler's queue, as the router does when it starts
    /// the stream: the worker then delivers a change published after the
    /// client's snapshot only after the client has subscribed. A change
    /// published before the snapshot but delivered after is filtered out by
    /// its sequence number. (`stream(from:)` may be subscribed anywhere.)
    ///
    /// An `Infallible`, not a `Signal`: the client's view (its first item, the
    /// filter) is its alone, so it needs no share of its own; a `Signal`'s
    /// operators would add one per operator, each with its lock and delivery
    /// queue, on every event to every client (docs/http.md, fan-out).
    ///
    /// A client that missed several changes gets them through its own chain,
    /// as ``stream(from:)`` makes it: `startWith` here takes one element.
    ///
    /// `admitting`, when given, is the client's own choice of items (its `?collection=`, what
    /// its key may see), its first item included: it runs inside the filter every client has
    /// anyway, not as an operator of its own, which would cost each delivery to each client
    /// another sink and its generic metadata look-ups (`Benchmarks/Service/service-instructions.py`).
    func workerStream(
        from start: Start, deliveringOn scheduler: any SchedulerType, admitting: (@Sendable (Item) -> Bool)? = nil
    ) -> Infallible<Item> {
        Infallible.deferred { [self] in
            let shared = state.withLock { state -> (hub: Hub, first: Item, delivered: Int64)? in
                let first = Self.firstItems(from: start, &state)
                guard first.count == 1, let hub = hub(for: scheduler, &state) else { return nil }
                hub.letGo(hub.bridge())
                return (hub, first[0], state.lastSequence)
            }
            guard let shared else {
                let own = SharingScheduler.building(deliveringOn: scheduler) { stream(from: start) }.asInfallible()
                guard let admitting else { return own }
                return own.filter(admitting)
            }
            let delivered = ClientPosition(shared.delivered)
            let changes = shared.hub.changes.asInfallible()
            guard let admitting else {
                return changes.filter { item in delivered.admits(item) }.startWith(shared.first)
            }
            let live = changes.filter { item in delivered.admits(item) && admitting(item) }
            return admitting(shared.first) ? live.startWith(shared.first) : live
        }
    }

    /// The hub of `scheduler`, made now if it is the first client's; nil when
    /// there are already ``maximumHubs``. Under the lock.
    private func hub(for scheduler: any SchedulerType, _ state: inout State) -> Hub? {
        let key = ObjectIdentifier(scheduler as AnyObject)
        if let hub = state.hubs[key] { return hub }
        guard state.hubs.count < Self.maximumHubs else { return nil }
        let hub = Hub(relay: relay, scheduler: scheduler)
        state.hubs[key] = hub
        return hub
    }

    /// What a client gets before live changes: what it missed, a reset, or its position. Under
    /// the lock; the missed changes still pending are made now, and kept made for later clients.
    private static func firstItems(from start: Start, _ state: inout State) -> [Item] {
        switch start {
        case .reset:
            return [.reset(lastSequence: state.lastSequence)]
        case .after(let lastSeen) where lastSeen < state.lastSequence:
            let oldestKept = state.history.first?.sequence ?? state.lastSequence + 1
            guard lastSeen + 1 >= oldestKept else { return [.reset(lastSequence: state.lastSequence)] }
            var missed: [Item] = []
            for position in state.history.indices where state.history[position].sequence > lastSeen {
                missed.append(.change(made(at: position, in: &state.history)))
            }
            return missed
        case .after(let lastSeen) where lastSeen > state.lastSequence:
            // An id this server never gave (or from a lost store): start over.
            return [.reset(lastSequence: state.lastSequence)]
        case .now, .after:
            return [.position(state.lastSequence)]
        }
    }

    /// The change kept at `position`, made now if it was still pending.
    private static func made(at position: Int, in history: inout Deque<Kept>) -> Change {
        switch history[position] {
        case .made(let change):
            return change
        case .pending(let run, let offset):
            let change = Change(run.event(at: offset))
            history[position] = .made(change)
            return change
        }
    }

    /// Whether a live item is news to a client that has everything up to `delivered`.
    /// Where one client stands: a change at or before it is already the client's (from its
    /// snapshot). A reset moves it to the reset's id, also back (a replica that went back after a
    /// failover, ``ChangeApplier/rewind(to:corrections:history:)``), so the changes after it pass.
    /// Each client's items come one at a time (its worker's queue, or the feed's lock).
    private final class ClientPosition: Sendable {
        private let sequence: Atomic<Int64>

        init(_ sequence: Int64) { self.sequence = Atomic(sequence) }

        func admits(_ item: Item) -> Bool {
            switch item {
            case .change(let event):
                return event.sequence > sequence.load(ordering: .relaxed)
            case .reset(let lastSequence):
                sequence.store(lastSequence, ordering: .relaxed)
                return true
            case .position:
                return true
            }
        }
    }
}

/// What a ``ChangeFeed`` keeps and hands out for one change: made once, when the change is
/// published, and shared by every subscriber from then on. The feed of `/events` keeps each
/// change with its server-sent-event frame; a plain ``ChangeEvent`` is one too.
protocol FeedChange: Sendable, Equatable {
    /// Made from `event` once, for every subscriber.
    init(_ event: ChangeEvent)
    /// The change's sequence number: the feed orders, replays and filters by it.
    var sequence: Int64 { get }
}

extension ChangeEvent: FeedChange {
    init(_ event: ChangeEvent) { self = event }
}

/// Where the changes applied to this replica go, in sequence order: the change feed. The applier
/// knows it by this alone, whatever the feed keeps of each change.
protocol ChangePublisher: Sendable {
    /// Hands `event` to every subscriber; called once per change, in sequence order.
    func publish(_ event: ChangeEvent)
    /// Hands `events` to every subscriber, in order, as `publish(_:)` each does one.
    func publish(_ events: [ChangeEvent])
    /// Hands `run`'s events to every subscriber, in order, as `publish(_:)` each would; a
    /// publisher may make them only when something reads them.
    func publish(_ run: PendingEvents)
    /// Continues at `sequence` after changes applied without events; `history` is the change
    /// log's newest changes, ending at `sequence`.
    func restart(at sequence: Int64, history: [ChangeEvent])
}

extension ChangePublisher {
    func publish(_ events: [ChangeEvent]) {
        for event in events { publish(event) }
    }

    func publish(_ run: PendingEvents) {
        publish(run.events())
    }
}
