import Base
import DequeModule
import Foundation
import Rx

/// The change feed: a `Signal` of every change (shared upstream, no replay)
/// and, beside it, a bounded history that serves `Last-Event-ID` resumes.
final class ChangeFeed: Sendable {
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
        case change(ChangeEvent)
        /// The history no longer holds what the client missed: it should reload its state.
        case reset(lastSequence: Int64)
        /// Where the stream starts when nothing was replayed, so a client that reconnects
        /// before any change still resumes from here.
        case position(Int64)
    }

    private struct State {
        var history: Deque<ChangeEvent> = []
        var lastSequence: Int64
    }

    /// Live changes and resets, shared by every client. Not replayed.
    private let relay = PublishRelay<Item>()
    private let state: Locked<State>
    private let capacity: Int

    /// - Parameters:
    ///   - lastSequence: the id of the latest change already stored (from a previous run).
    ///   - capacity: how many events the history keeps.
    init(lastSequence: Int64, capacity: Int) {
        state = Locked(State(lastSequence: lastSequence))
        self.capacity = capacity
    }

    /// Records `event` and sends it to every subscriber. Called by the single writer, in sequence order.
    func publish(_ event: ChangeEvent) {
        state.withLock { state in
            state.history.append(event)
            if state.history.count > capacity { state.history.removeFirst(state.history.count - capacity) }
            state.lastSequence = event.sequence
            // Inside the lock, so a subscriber that snapshots the history
            // either sees this event there or receives it from the relay.
            relay.accept(.change(event))
        }
    }

    /// Continues at `sequence` after changes that were applied without events (a replica
    /// that caught up from the documents because the change log no longer held what it
    /// missed): the history is dropped, and every client gets a reset.
    func restart(at sequence: Int64) {
        state.withLock { state in
            state.history.removeAll()
            state.lastSequence = sequence
            relay.accept(.reset(lastSequence: sequence))
        }
    }

    /// The stream for one `/events` client: what it missed (or a reset), then live changes.
    ///
    /// Live changes come from the one shared ``changes`` upstream; the
    /// missed ones from the history, taken under the same lock as ``publish``
    /// so nothing falls between the two and nothing comes twice.
    func stream(from start: Start) -> Signal<Item> {
        Observable<Item>.create { [self] observer in
            let subscription = SingleAssignmentDisposable()
            state.withLock { state in
                var delivered = state.lastSequence
                var replayed = false
                if case .reset = start {
                    observer.onNext(.reset(lastSequence: state.lastSequence))
                    replayed = true
                } else if case .after(let lastSeen) = start, lastSeen < state.lastSequence {
                    replayed = true
                    let oldestKept = state.history.first?.sequence ?? state.lastSequence + 1
                    if lastSeen + 1 >= oldestKept {
                        for event in state.history where event.sequence > lastSeen { observer.onNext(.change(event)) }
                    } else {
                        observer.onNext(.reset(lastSequence: state.lastSequence))
                    }
                } else if case .after(let lastSeen) = start, lastSeen > state.lastSequence {
                    // An id this server never gave (or from a lost store): start over.
                    observer.onNext(.reset(lastSequence: state.lastSequence))
                    replayed = true
                }
                if !replayed { observer.onNext(.position(state.lastSequence)) }
                delivered = state.lastSequence
                subscription.setDisposable(
                    relay.asObservable()
                        .filter { item in
                            if case .change(let event) = item { return event.sequence > delivered }
                            return true
                        }
                        .subscribe(observer))
            }
            return subscription
        }
        .asSignal(onErrorSignalWith: .empty())
    }
}
