import Base
import Rx
import Search
import Testing
@testable import Signalbox

/// Collects the first `count` items of a Signal, awaiting them (no sleeps).
func firstItems<Element: Sendable>(_ count: Int, of signal: Signal<Element>, after start: () -> Void = {}) async -> [Element] {
    let collected = Locked<[Element]>([])
    let subscription = SingleAssignmentDisposable()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let once = Locked(false)
        subscription.setDisposable(signal.emit(onNext: { element in
            let finished = collected.withLock { items in
                items.append(element)
                return items.count == count
            }
            if finished, once.withLock({ fired in defer { fired = true }; return !fired }) { done.resume() }
        }))
        start()
    }
    subscription.dispose()
    return collected.withLock { $0 }
}

@Suite struct ChangeFeedTests {
    func change(_ sequence: Int64) -> ChangeEvent {
        ChangeEvent(
            sequence: sequence, kind: .upserted, documentID: "d\(sequence)",
            document: Document(id: "d\(sequence)", name: "n\(sequence)"), previous: nil)
    }

    func sequences(_ items: [ChangeFeed<ChangeEvent>.Item]) -> [String] {
        items.map { item in
            switch item {
            case .change(let change): "\(change.sequence)"
            case .reset(let last): "reset@\(last)"
            case .position(let sequence): "at@\(sequence)"
            }
        }
    }

    @Test func aNewClientGetsOnlyWhatHappensAfterItArrives() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 10)
        feed.publish(change(1))
        let items = await firstItems(2, of: feed.stream(from: .now)) { feed.publish(change(2)) }
        #expect(sequences(items) == ["at@1", "2"])
    }

    @Test func aResumeGetsWhatItMissedThenLiveChanges() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 10)
        for sequence in 1...4 { feed.publish(change(Int64(sequence))) }
        let items = await firstItems(3, of: feed.stream(from: .after(2))) { feed.publish(change(5)) }
        #expect(sequences(items) == ["3", "4", "5"])
    }

    @Test func aResumeBeyondTheHistoryGetsAReset() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 2)
        for sequence in 1...5 { feed.publish(change(Int64(sequence))) }
        let items = await firstItems(2, of: feed.stream(from: .after(1))) { feed.publish(change(6)) }
        #expect(sequences(items) == ["reset@5", "6"])
    }

    @Test func anIdFromTheFutureGetsAReset() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 7, capacity: 2)
        let items = await firstItems(1, of: feed.stream(from: .after(100)))
        #expect(sequences(items) == ["reset@7"])
    }

    @Test func aResumeAtTheLatestIdMissesNothingAndRepeatsNothing() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 3, capacity: 2)
        let items = await firstItems(2, of: feed.stream(from: .after(3))) { feed.publish(change(4)) }
        #expect(sequences(items) == ["at@3", "4"])
    }

    /// Issue 27: a feed that starts with the store's newest changes (a replica that has just
    /// started) serves a resume from before it started, instead of a reset.
    @Test func aFeedStartedWithTheLogsNewestChangesServesResumesFromBeforeItStarted() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 5, capacity: 10, history: (3...5).map { change(Int64($0)) })
        let items = await firstItems(3, of: feed.stream(from: .after(3))) { feed.publish(change(6)) }
        #expect(sequences(items) == ["4", "5", "6"])
        let older = await firstItems(1, of: feed.stream(from: .after(1)))
        #expect(sequences(older) == ["reset@6"])
    }

    @Test func aStartingHistoryWithAGapKeepsOnlyItsGapFreeTail() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 6, capacity: 10, history: [1, 2, 4, 5, 6].map { change(Int64($0)) })
        let items = await firstItems(2, of: feed.stream(from: .after(4)))
        #expect(sequences(items) == ["5", "6"])
        let beforeTheGap = await firstItems(1, of: feed.stream(from: .after(2)))
        #expect(sequences(beforeTheGap) == ["reset@6"])
        let notEndingAtTheHead = ChangeFeed<ChangeEvent>(lastSequence: 9, capacity: 10, history: (3...5).map { change(Int64($0)) })
        #expect(sequences(await firstItems(1, of: notEndingAtTheHead.stream(from: .after(4)))) == ["reset@9"])
    }

    /// A run of changes whose events are made only when read (an import's batch, issue 25).
    func run(_ sequences: ClosedRange<Int64>, made: Locked<[Int64]>) -> PendingEvents {
        let sequences = Array(sequences)
        return PendingEvents(sequences: sequences) { [self] offset in
            made.withLock { $0.append(sequences[offset]) }
            return change(sequences[offset])
        }
    }

    /// With nobody listening, a run's events are not made when it is published; a client that
    /// resumes into it gets them made then, once each, in order, as a live client would have.
    @Test func aRunNobodyListensToIsMadeOnlyWhenAResumeReadsIt() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 10)
        let made = Locked<[Int64]>([])
        feed.publish(change(1))
        feed.publish(run(2...5, made: made))
        feed.publish(change(6))
        #expect(made.withLock { $0 }.isEmpty)
        let items = await firstItems(5, of: feed.stream(from: .after(1)))
        #expect(sequences(items) == ["2", "3", "4", "5", "6"])
        let events = items.prefix(4).compactMap { item -> ChangeEvent? in
            if case .change(let event) = item { return event }
            return nil
        }
        #expect(events == (2...5).map { change(Int64($0)) })
        #expect(made.withLock { $0 } == [2, 3, 4, 5])
        // Made once: a second resume gets the kept events.
        let again = await firstItems(3, of: feed.stream(from: .after(3)))
        #expect(sequences(again) == ["4", "5", "6"])
        #expect(made.withLock { $0 } == [2, 3, 4, 5])
        // A fresh client starts after the run.
        let fresh = await firstItems(2, of: feed.stream(from: .now)) { feed.publish(change(7)) }
        #expect(sequences(fresh) == ["at@6", "7"])
    }

    /// The history keeps only its capacity of a run: a resume from before that gets a reset.
    @Test func aRunLongerThanTheHistoryKeepsItsNewestChanges() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 3)
        let made = Locked<[Int64]>([])
        feed.publish(change(1))
        feed.publish(run(2...6, made: made))
        #expect(sequences(await firstItems(1, of: feed.stream(from: .after(2)))) == ["reset@6"])
        #expect(sequences(await firstItems(3, of: feed.stream(from: .after(3)))) == ["4", "5", "6"])
        #expect(made.withLock { $0 } == [4, 5, 6])
    }

    /// With a live subscriber, every event of a run is made when it is published and sent once,
    /// in order; the history has them for a resume.
    @Test func aLiveClientGetsEveryChangeOfARunOnceInOrder() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 10)
        let made = Locked<[Int64]>([])
        let items = await firstItems(6, of: feed.stream(from: .now)) {
            feed.publish(run(1...4, made: made))
            feed.publish(change(5))
        }
        #expect(sequences(items) == ["at@0", "1", "2", "3", "4", "5"])
        #expect(made.withLock { $0 } == [1, 2, 3, 4])
        #expect(sequences(await firstItems(2, of: feed.stream(from: .after(3)))) == ["4", "5"])
        #expect(made.withLock { $0 } == [1, 2, 3, 4])
    }

    @Test func aRestartKeepsTheLogsNewestChangesForLaterResumes() async {
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 10)
        feed.restart(at: 8, history: (6...8).map { change(Int64($0)) })
        let items = await firstItems(2, of: feed.stream(from: .after(6)))
        #expect(sequences(items) == ["7", "8"])
    }
}
