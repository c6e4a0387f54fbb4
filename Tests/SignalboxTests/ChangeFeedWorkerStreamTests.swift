import Base
import Rx
import RxTest
import Search
import Testing
@testable import Signalbox

/// `ChangeFeed.workerStream`: the clients of one scheduler (an HTTP worker)
/// share one subscription to the live changes; each still gets exactly what
/// `stream(from:)` gives. Virtual time: the test scheduler stands in for the
/// worker (passed as the request's `eventScheduler` is), and every
/// subscription is made on it, as the router makes them.
@Suite struct ChangeFeedWorkerStreamTests {
    typealias ChangeFeed = Signalbox.ChangeFeed<ChangeEvent>

    func change(_ sequence: Int64) -> ChangeEvent {
        ChangeEvent(
            sequence: sequence, kind: .upserted, documentID: "d\(sequence)",
            document: Document(id: "d\(sequence)", name: "n\(sequence)"), previous: nil)
    }

    /// A client's stream, delivering on `scheduler` as `/events` has it deliver on its worker.
    func client(_ feed: ChangeFeed, from start: ChangeFeed.Start, on scheduler: TestScheduler) -> Observable<ChangeFeed.Item> {
        feed.workerStream(from: start, deliveringOn: scheduler).asObservable()
    }

    /// Each recorded element as `time:label`.
    func timeline(_ observer: TestableObserver<ChangeFeed.Item>) -> [String] {
        observer.events.compactMap { recorded in
            guard case .next(let item) = recorded.value else { return "\(recorded.time):end" }
            switch item {
            case .change(let change): return "\(recorded.time):\(change.sequence)"
            case .reset(let last): return "\(recorded.time):reset@\(last)"
            case .position(let sequence): return "\(recorded.time):at@\(sequence)"
            }
        }
    }

    @Test func clientsOfOneWorkerShareOneSubscriptionAndEachGetsEveryChangeOnce() {
        let feed = ChangeFeed(lastSequence: 0, capacity: 10)
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let early = scheduler.createObserver(ChangeFeed.Item.self)
        let late = scheduler.createObserver(ChangeFeed.Item.self)
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(100) { subscriptions.append(client(feed, from: .now, on: scheduler).subscribe(early)) }
        scheduler.scheduleAt(200) {
            // Published and queued for the worker before the late client's snapshot,
            // delivered after it subscribed: the late client must not get it twice.
            feed.publish(change(1))
            subscriptions.append(client(feed, from: .now, on: scheduler).subscribe(late))
        }
        scheduler.scheduleAt(300) { feed.publish(change(2)) }
        scheduler.scheduleAt(400) { subscriptions.forEach { $0.dispose() } }
        scheduler.scheduleAt(500) { feed.publish(change(3)) }
        scheduler.start()
        #expect(timeline(early) == ["100:at@0", "200:1", "300:2"])
        #expect(timeline(late) == ["200:at@1", "300:2"])
        #expect(feed.sharedSubscriptionCount == 1)
    }

    @Test func aResumeGetsWhatItMissedThenLiveChangesInOrder() {
        let feed = ChangeFeed(lastSequence: 0, capacity: 10)
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let missedTwo = scheduler.createObserver(ChangeFeed.Item.self)
        let missedOne = scheduler.createObserver(ChangeFeed.Item.self)
        var subscriptions: [Disposable] = []
        for sequence in 1...3 { feed.publish(change(Int64(sequence))) }
        scheduler.scheduleAt(100) {
            subscriptions.append(client(feed, from: .after(1), on: scheduler).subscribe(missedTwo))
            subscriptions.append(client(feed, from: .after(2), on: scheduler).subscribe(missedOne))
        }
        scheduler.scheduleAt(200) { feed.publish(change(4)) }
        scheduler.scheduleAt(300) { subscriptions.forEach { $0.dispose() } }
        scheduler.start()
        #expect(timeline(missedTwo) == ["100:2", "100:3", "200:4"])
        #expect(timeline(missedOne) == ["100:3", "200:4"])
    }

    @Test func resetsReachEveryClient() {
        let feed = ChangeFeed(lastSequence: 5, capacity: 2)
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let fresh = scheduler.createObserver(ChangeFeed.Item.self)
        let fromTheFuture = scheduler.createObserver(ChangeFeed.Item.self)
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(100) {
            subscriptions.append(client(feed, from: .now, on: scheduler).subscribe(fresh))
            subscriptions.append(client(feed, from: .after(100), on: scheduler).subscribe(fromTheFuture))
        }
        scheduler.scheduleAt(200) { feed.restart(at: 40) }
        scheduler.scheduleAt(300) { feed.publish(change(41)) }
        scheduler.scheduleAt(400) { subscriptions.forEach { $0.dispose() } }
        scheduler.start()
        #expect(timeline(fresh) == ["100:at@5", "200:reset@40", "300:41"])
        #expect(timeline(fromTheFuture) == ["100:reset@5", "200:reset@40", "300:41"])
    }

    @Test func eachSchedulerHasItsOwnSharedSubscription() {
        let feed = ChangeFeed(lastSequence: 0, capacity: 10)
        let first = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let second = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let one = first.createObserver(ChangeFeed.Item.self)
        let other = second.createObserver(ChangeFeed.Item.self)
        let subscriptions = [
            client(feed, from: .now, on: first).subscribe(one),
            client(feed, from: .now, on: second).subscribe(other),
        ]
        feed.publish(change(1))
        first.start()
        #expect(timeline(one) == ["0:at@0", "0:1"])
        #expect(timeline(other) == ["0:at@0"])  // its worker has not run yet
        second.start()
        #expect(timeline(other) == ["0:at@0", "0:1"])
        #expect(feed.sharedSubscriptionCount == 2)
        subscriptions.forEach { $0.dispose() }
    }

    /// A client's own choice (`admitting`: its `?collection=`, what its key may see) runs in the
    /// feed's filter: it applies to the first item as to live ones, and other clients of the same
    /// worker still get everything.
    @Test func aClientsOwnChoiceAppliesToItsFirstAndLiveItemsAlone() {
        let feed = ChangeFeed(lastSequence: 0, capacity: 10)
        for sequence in 1...2 { feed.publish(change(Int64(sequence))) }
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let odd = scheduler.createObserver(ChangeFeed.Item.self)
        let everything = scheduler.createObserver(ChangeFeed.Item.self)
        let oddOnly: @Sendable (ChangeFeed.Item) -> Bool = { item in
            guard case .change(let change) = item else { return true }
            return change.sequence % 2 == 1
        }
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(100) {
            // Missed change 2 only: its one first item is a change this client does not take.
            subscriptions.append(feed.workerStream(from: .after(1), deliveringOn: scheduler, admitting: oddOnly).asObservable().subscribe(odd))
            subscriptions.append(client(feed, from: .after(1), on: scheduler).subscribe(everything))
        }
        scheduler.scheduleAt(200) { feed.publish(change(3)) }
        scheduler.scheduleAt(300) { feed.publish(change(4)) }
        scheduler.scheduleAt(400) { feed.restart(at: 10) }
        scheduler.scheduleAt(500) { subscriptions.forEach { $0.dispose() } }
        scheduler.start()
        #expect(timeline(odd) == ["200:3", "400:reset@10"])
        #expect(timeline(everything) == ["100:2", "200:3", "300:4", "400:reset@10"])
        #expect(feed.sharedSubscriptionCount == 1)
    }
}

/// Issue 25: once the last client of a worker has gone, its shared subscription lets go of the
/// live changes, and a run published then (an import's batch) has its events made only if
/// something reads them. Before, the subscription stayed for the feed's life: every import after
/// the first `/events` client made every event, for nobody.
@Suite struct ChangeFeedIdleWorkerTests {
    typealias ChangeFeed = Signalbox.ChangeFeed<ChangeEvent>
    let streams = ChangeFeedWorkerStreamTests()

    /// A run whose events record when they are made.
    func run(_ sequences: ClosedRange<Int64>, made: Locked<[Int64]>) -> PendingEvents {
        let sequences = Array(sequences)
        return PendingEvents(sequences: sequences) { [streams] offset in
            made.withLock { $0.append(sequences[offset]) }
            return streams.change(sequences[offset])
        }
    }

    @Test func aRunPublishedAfterTheLastClientLeftIsNotMadeAndALaterClientGetsLiveChanges() {
        let feed = ChangeFeed(lastSequence: 0, capacity: 10)
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let first = scheduler.createObserver(ChangeFeed.Item.self)
        let second = scheduler.createObserver(ChangeFeed.Item.self)
        let made = Locked<[Int64]>([])
        let subscription = SerialDisposable()
        scheduler.scheduleAt(100) { subscription.disposable = streams.client(feed, from: .now, on: scheduler).subscribe(first) }
        scheduler.scheduleAt(200) { feed.publish(run(1...2, made: made)) }
        scheduler.scheduleAt(300) { subscription.disposable = Disposables.create() }  // the only client leaves
        scheduler.scheduleAt(400) { feed.publish(run(3...5, made: made)) }
        scheduler.scheduleAt(500) { subscription.disposable = streams.client(feed, from: .now, on: scheduler).subscribe(second) }
        scheduler.scheduleAt(600) { feed.publish(run(6...6, made: made)) }
        scheduler.scheduleAt(700) { subscription.dispose() }
        scheduler.start()
        // Before: [1, 2, 3, 4, 5, 6]: the run at 400 was made though nobody listened.
        #expect(made.withLock { $0 } == [1, 2, 6])
        #expect(feed.unmadeChanges == 3)
        #expect(!feed.hasLiveSubscribers)
        #expect(streams.timeline(first) == ["100:at@0", "200:1", "200:2"])
        #expect(streams.timeline(second) == ["500:at@5", "600:6"])
    }

    /// A client that arrives while a change is published gets it once, whether the worker's
    /// subscription was let go before it came or not.
    @Test func aClientThatReconnectsTheWorkerMissesNothingPublishedAfterItsSnapshot() {
        let feed = ChangeFeed(lastSequence: 0, capacity: 10)
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let observers = (0..<3).map { _ in scheduler.createObserver(ChangeFeed.Item.self) }
        let subscriptions = CompositeDisposable()
        scheduler.scheduleAt(100) { _ = subscriptions.insert(streams.client(feed, from: .now, on: scheduler).subscribe(observers[0])) }
        scheduler.scheduleAt(200) { subscriptions.dispose() }
        let later = CompositeDisposable()
        scheduler.scheduleAt(300) {
            _ = later.insert(streams.client(feed, from: .now, on: scheduler).subscribe(observers[1]))
            feed.publish(streams.change(1))  // after the snapshot, before the worker's next turn
            _ = later.insert(streams.client(feed, from: .after(0), on: scheduler).subscribe(observers[2]))
        }
        scheduler.scheduleAt(400) { feed.publish(streams.change(2)) }
        scheduler.scheduleAt(500) { later.dispose() }
        scheduler.start()
        #expect(streams.timeline(observers[1]) == ["300:at@0", "300:1", "400:2"])
        #expect(streams.timeline(observers[2]) == ["300:1", "400:2"])
        #expect(!feed.hasLiveSubscribers)
    }
}
