import Base
import Foundation
import Rx
import Search
import Testing
@testable import Signalbox

/// The applier keeps a replica exactly in the store's order, whatever order changes arrive in.
@Suite struct ChangeApplierTests {
    struct Replica {
        let index = SearchIndex(documents: [Document(id: "base", name: "Baseville")])
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 100)
        let applier: ChangeApplier

        init() {
            let lookups = SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics())
            applier = ChangeApplier(index: index, lookups: lookups, feed: feed, metrics: ServiceMetrics(), applied: 0)
        }
    }

    static func upsert(_ sequence: Int64, _ id: String) -> ChangeApplier.Change {
        ChangeApplier.Change(sequence: sequence, id: id, document: Document(id: id, name: "Town \(id)"), body: nil)
    }

    /// Completes when the replica has applied `sequence` (no sleeping: awaits the relay).
    static func applied(_ replica: Replica, _ sequence: Int64) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = replica.applier.applied.asObservable().filter { $0 >= sequence }.take(1)
                .subscribe(onCompleted: { done.resume() })
        }
    }

    /// What the follower's read starts after and leaves out: the changes held in order (applied
    /// or staged), and those staged behind a missing one.
    @Test func heldChangesAreTheAppliedAndTheStaged() async {
        let replica = Replica()
        #expect(replica.applier.heldThrough == 0)
        replica.applier.stage(Self.upsert(1, "a"))
        replica.applier.stage(Self.upsert(2, "b"))
        replica.applier.stage(Self.upsert(5, "e"))
        replica.applier.stage(Self.upsert(4, "d"))
        #expect(replica.applier.heldThrough == 2)
        #expect(replica.applier.held(limit: 10) == (through: 2, later: [4, 5]))
        #expect(replica.applier.held(limit: 1).later == [4])
        // Staged, not applied: a drain asked for with nothing new applies what is next in order.
        replica.applier.offer([])
        await Self.applied(replica, 2)
        #expect(replica.applier.heldThrough == 2 && replica.applier.applied.value == 2)
        replica.applier.offer([Self.upsert(3, "c")])
        await Self.applied(replica, 5)
        #expect(replica.applier.held(limit: 10) == (through: 5, later: []))
    }

    @Test func changesArrivingOutOfOrderAreAppliedInOrderOnceEach() async {
        let replica = Replica()
        let gaps = Locked(0)
        let (gapSeen, gapSeenContinuation) = AsyncStream<Void>.makeStream()
        replica.applier.onGap {
            gaps.withLock { $0 += 1 }
            gapSeenContinuation.yield()
        }
        // Offers that arrive before the drain runs go into one run, so the missing first one is
        // offered only once the applier has met the gap (nothing is applied before it).
        replica.applier.offer([Self.upsert(3, "c"), Self.upsert(2, "b")])
        replica.applier.offer([Self.upsert(2, "b")])  // again: ignored
        var gapsSeen = gapSeen.makeAsyncIterator()
        _ = await gapsSeen.next()
        // The position, then the four changes.
        let items = await firstItems(5, of: replica.feed.stream(from: .now)) {
            replica.applier.offer([Self.upsert(1, "a"), Self.upsert(4, "d")])
        }
        await Self.applied(replica, 4)
        let sequences: [Int64] = items.compactMap { item in
            if case .change(let change) = item { return change.sequence }
            return nil
        }
        #expect(sequences == [1, 2, 3, 4])
        #expect(replica.index.document(id: "c")?.name == "Town c")
        #expect(gaps.withLock { $0 } >= 1)
    }

    @Test func catchingUpPastTheLogResetsTheFeedsClients() async {
        let replica = Replica()
        let items = await firstItems(2, of: replica.feed.stream(from: .now)) {
            replica.applier.catchUp(
                to: 40, documents: [Self.upsert(17, "x"), ChangeApplier.Change(sequence: 39, id: "base", document: nil, body: nil)])
        }
        await Self.applied(replica, 40)
        #expect(replica.index.document(id: "x") != nil && replica.index.document(id: "base") == nil)
        #expect(items.last == .reset(lastSequence: 40))
    }

    @Test func aReadHeldForASequenceNumberFailsAfterItsWait() async {
        let replica = Replica()
        let timedOut: Bool = await withCheckedContinuation { done in
            _ = replica.applier.applied(atLeast: 5, within: .milliseconds(20)).subscribe { event in
                if case .error(let error) = event { done.resume(returning: error is NotAppliedInTime) } else { done.resume(returning: false) }
            }
        }
        #expect(timedOut)
    }

    /// A write's own apply returns once the change is searchable; behind a change this
    /// replica has not seen yet (another replica's), once the wait has passed.
    @Test func applyingAWriteReturnsOnceItIsSearchableOrTheWaitHasPassed() async {
        let replica = Replica()
        #expect(await replica.applier.apply(Self.upsert(1, "a"), waitingAtMost: .seconds(10)))
        #expect(replica.index.document(id: "a") != nil)
        #expect(await replica.applier.apply(Self.upsert(3, "c"), waitingAtMost: .milliseconds(20)) == false)
        #expect(replica.index.document(id: "c") == nil)
        #expect(await replica.applier.apply(Self.upsert(2, "b"), waitingAtMost: .seconds(10)))
        await Self.applied(replica, 3)
        #expect(replica.index.document(id: "c") != nil)
    }

    /// A saved index's mark (``IndexMark``) names the changes the replica applied up to the
    /// index's sequence, the newest last; none when the replica went back after the snapshot
    /// was taken (it may hold either history), or when it does not know the change there.
    @Test func anIndexMarkNamesTheNewestAppliedChangesAndNoneAfterARewind() async {
        let replica = Replica()
        let stored = StoredChange(id: "s", body: Data("{}".utf8), sequence: 1)
        let started = ChangeApplier(
            index: replica.index, lookups: SearchLookups(index: replica.index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics()),
            feed: replica.feed, metrics: ServiceMetrics(), applied: 1, recentChanges: [stored], server: "primary@1")
        // A replica that has just started knows the log's newest changes it started from.
        #expect(started.mark(at: 1, since: started.markPosition()) == IndexMark(
            sequence: 1, server: "primary@1", changes: [IndexMark.Change(sequence: 1, digest: stored.digest)]))

        replica.applier.offer((1...40).map { Self.upsert($0, "d\($0)") })
        await Self.applied(replica, 40)
        let position = replica.applier.markPosition()
        #expect(position == IndexMark.Position(server: nil, rewinds: 0, served: 40))
        let mark = replica.applier.mark(at: 38, since: position)
        #expect(mark?.sequence == 38 && mark?.server == nil)
        #expect(mark?.changes.map(\.sequence) == Array(38 - Int64(IndexMark.keptChanges) + 1...38))
        #expect(mark?.changes.last?.digest == HistoryCheck.digest(id: "d38", body: nil))
        #expect(replica.applier.mark(at: 41, since: position) == nil)  // not applied
        replica.applier.confirm(server: "standby@2")
        #expect(replica.applier.markPosition().server == "standby@2")

        await replica.applier.rewind(to: 30, corrections: [], history: [])
        #expect(replica.applier.mark(at: 30, since: position) == nil)
        #expect(replica.applier.mark(at: 30, since: replica.applier.markPosition())?.changes.last?.sequence == 30)
    }

    /// Issue 27 part 4: a commit group's writes are staged together, so the first writer's apply
    /// takes the whole group in one run (one version step per change, one index write); a staged
    /// change nobody asks for goes with the next offer, even an empty one (the follower's read).
    @Test func stagedChangesGoTogetherWithTheFirstWriteApplied() async {
        let replica = Replica()
        for sequence in Int64(1)...5 { replica.applier.stage(Self.upsert(sequence, "s\(sequence)")) }
        #expect(replica.applier.applied.value == 0)  // staged, not applied
        #expect(await replica.applier.apply(Self.upsert(1, "s1"), waitingAtMost: .seconds(10)))
        await Self.applied(replica, 5)
        #expect((1...5).allSatisfy { replica.index.document(id: "s\($0)") != nil })
        replica.applier.stage(Self.upsert(6, "s6"))
        replica.applier.offer([])
        await Self.applied(replica, 6)
        #expect(replica.index.document(id: "s6") != nil)
    }

    /// Issue 25: a collection's run is published without its events made (nobody listens), and
    /// a resume then gets every change once, in order, each with the document before it as the
    /// index write replaced it: an earlier change's of the same run, or the index's.
    @Test func aCollectionRunsEventsCarryTheDocumentsTheyReplaced() async throws {
        let index = SearchIndex(documents: [])
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 100)
        let catalog = CollectionCatalog()
        let applier = ChangeApplier(
            index: index, lookups: SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics()),
            collections: catalog, feed: feed, metrics: ServiceMetrics(), applied: 0)
        func shop(_ sequence: Int64, _ id: String, _ title: String?) -> ChangeApplier.Change {
            ChangeApplier.Change(
                sequence: sequence, collection: "shop", id: id, body: title.map { text in Data(#"{"id":"\#(id)","title":"\#(text)"}"#.utf8) })
        }
        let schema = Data(#"{"fields":[{"name":"title","type":"string","search":true}]}"#.utf8)
        applier.offer([ChangeApplier.Change(sequence: 1, collection: "shop", kind: .schema, id: "shop", body: schema)])
        applier.offer([shop(2, "a", "One"), shop(3, "a", "Two"), shop(4, "b", "Bee"), shop(5, "a", nil)])
        await EventEndpointsTests.applied(applier, 5)
        applier.offer([shop(6, "a", "Three"), shop(7, "b", "Bee again")])
        await EventEndpointsTests.applied(applier, 7)
        let items = await firstItems(6, of: feed.stream(from: .after(1)))
        let events = items.compactMap { item -> ChangeEvent? in
            if case .change(let event) = item { return event }
            return nil
        }
        #expect(events.map(\.sequence) == [2, 3, 4, 5, 6, 7])
        #expect(events.map(\.kind) == [.upserted, .upserted, .upserted, .deleted, .upserted, .upserted])
        func title(_ document: CollectionDocument?) -> String? {
            document.flatMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }?["title"] as? String
        }
        #expect(events.map { title($0.record) } == ["One", "Two", "Bee", nil, "Three", "Bee again"])
        #expect(events.map { title($0.previousRecord) } == [nil, "One", nil, "Two", nil, "Bee"])
        #expect(String(decoding: events[1].json, as: UTF8.self) == #"{"collection":"shop","document":{"id":"a","title":"Two"},"id":"a"}"#)
    }

    /// A city's run is published as a collection's is: with nobody listening its events are not
    /// made (``PendingEvents``), and a resume then gets each change once, in order, with the
    /// document before it (an earlier change's of the same run, or the index's) and the stored body's bytes.
    @Test func aCitiesRunsEventsAreMadeWhenReadWithTheDocumentsTheyReplaced() async throws {
        let replica = Replica()
        func city(_ sequence: Int64, _ id: String, _ name: String?) -> ChangeApplier.Change {
            ChangeApplier.Change(
                sequence: sequence, id: id, document: name.map { Document(id: id, name: $0) },
                body: name.map { Data(#"{"id":"\#(id)","name":"\#($0)"}"#.utf8) })
        }
        replica.applier.offer([city(1, "base", "Base again"), city(2, "n", "New"), city(3, "n", "Newer"), city(4, "base", nil)])
        await Self.applied(replica, 4)
        #expect(replica.feed.unmadeChanges == 4)  // before: 0, each made for nobody
        #expect(replica.index.document(id: "n")?.name == "Newer" && replica.index.document(id: "base") == nil)
        let items = await firstItems(4, of: replica.feed.stream(from: .after(0)))
        let events = items.compactMap { item -> ChangeEvent? in
            if case .change(let event) = item { return event }
            return nil
        }
        #expect(replica.feed.unmadeChanges == 0)
        #expect(events.map(\.sequence) == [1, 2, 3, 4])
        #expect(events.map(\.kind) == [.upserted, .upserted, .upserted, .deleted])
        #expect(events.map(\.document?.name) == ["Base again", "New", "Newer", nil])
        #expect(events.map(\.previous?.name) == ["Baseville", nil, "New", "Base again"])
        #expect(String(decoding: events[2].json, as: UTF8.self) == #"{"collection":"cities","document":{"id":"n","name":"Newer"},"id":"n"}"#)
        #expect(String(decoding: events[3].json, as: UTF8.self) == #"{"collection":"cities","id":"base"}"#)
    }

    /// An import's batch is counted by the index write's own look-up of each id: created when
    /// nothing had the id, updated when it replaced a document (held before, or written earlier
    /// in the same run). Changes outside the tally's numbers (another writer's, in the same
    /// run) are not counted, and a batch offered in two runs is counted in both.
    @Test func aTallyCountsWhatItsChangesCreatedAndReplaced() async throws {
        let index = SearchIndex(documents: [])
        let feed = ChangeFeed<ChangeEvent>(lastSequence: 0, capacity: 100)
        let applier = ChangeApplier(
            index: index, lookups: SearchLookups(index: index, maxEntries: 10, ttl: 60, metrics: ServiceMetrics()),
            collections: CollectionCatalog(), feed: feed, metrics: ServiceMetrics(), applied: 0)
        func shop(_ sequence: Int64, _ id: String, _ title: String? = "T") -> ChangeApplier.Change {
            ChangeApplier.Change(
                sequence: sequence, collection: "shop", id: id, body: title.map { text in Data(#"{"id":"\#(id)","title":"\#(text)"}"#.utf8) })
        }
        let schema = Data(#"{"fields":[{"name":"title","type":"string","search":true}]}"#.utf8)
        applier.offer([ChangeApplier.Change(sequence: 1, collection: "shop", kind: .schema, id: "shop", body: schema)])
        applier.offer([shop(2, "a"), shop(3, "gone"), shop(4, "gone", nil)])
        await EventEndpointsTests.applied(applier, 4)
        // 5...8 the batch; 9 another writer's, in the same run (offered first, applied with it).
        let tally = WriteTally(sequences: 5...8)
        applier.count(tally)
        applier.offer([shop(9, "b")])
        applier.offer([shop(5, "a"), shop(6, "c"), shop(7, "c"), shop(8, "gone")])
        await EventEndpointsTests.applied(applier, 9)
        #expect(tally.counted == WriteTally.Counts(created: 2, updated: 2))
        // Split over two runs (the second waits behind a missing change): counted in both, by
        // number, whoever offered them (11 here).
        let split = WriteTally(sequences: 10...12)
        applier.count(split)
        applier.offer([shop(10, "e"), shop(12, "d")])
        await EventEndpointsTests.applied(applier, 10)
        #expect(split.counted == WriteTally.Counts(created: 1, updated: 0))
        applier.offer([shop(11, "d")])
        await EventEndpointsTests.applied(applier, 12)
        #expect(split.counted == WriteTally.Counts(created: 2, updated: 1))

        // Made before its batch is committed (an import's, on PostgreSQL): the follower may read
        // the batch back and apply it before the commit returns with its numbers. What was
        // applied after the tally was made is kept by number, and counted once they are known;
        // another writer's change (13) is not.
        let early = WriteTally(after: 12)
        applier.count(early)
        applier.offer([shop(13, "x"), shop(14, "a"), shop(15, "y")])
        await EventEndpointsTests.applied(applier, 15)
        #expect(early.counted == WriteTally.Counts())
        early.close(to: 14...16)
        #expect(early.counted == WriteTally.Counts(created: 1, updated: 1))
        applier.offer([shop(16, "x")])
        await EventEndpointsTests.applied(applier, 16)
        #expect(early.counted == WriteTally.Counts(created: 1, updated: 2))

        // A batch that failed to commit: nothing counted, and the applier lets go of it.
        let failed = WriteTally(after: 16)
        applier.count(failed)
        failed.abandon()
        applier.offer([shop(17, "z")])
        await EventEndpointsTests.applied(applier, 17)
        #expect(failed.counted == WriteTally.Counts())
        #expect(!failed.wants(17...17) && failed.isDone(servedThrough: 0))
    }
}
