import Base
import Foundation
import Testing
@testable import Signalbox

/// Issue 27: concurrent writes share a transaction and take a block of consecutive numbers.
@Suite struct GroupCommitTests {
    /// Opens once; whoever waits before or after goes on then.
    actor Gate {
        private var open = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        func wait() async {
            if open { return }
            await withCheckedContinuation { waiting.append($0) }
        }
        func release() {
            open = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    @Test func writesThatArriveDuringACommitGoTogetherInTheNextWithConsecutiveNumbers() async throws {
        let gate = Gate()
        let batches = Locked<[[Int]]>([])
        let head = Locked<Int64>(0)
        let group = GroupCommit<Int>(maxBatch: 256) { items in
            batches.withLock { $0.append(items) }
            if items == [0] { await gate.wait() }  // the first commit is slow: the others queue behind it
            return head.withLock { head in
                defer { head += Int64(items.count) }
                return head + 1
            }
        }
        let first = Task { try await group.submit(0) }
        while batches.withLock({ $0.isEmpty }) { await Task.yield() }
        let rest = (1...20).map { item in Task { (item, try await group.submit(item)) } }
        while group.waitingCount < 20 { await Task.yield() }
        await gate.release()
        #expect(try await first.value == 1)
        var numbers: [Int: Int64] = [:]
        for task in rest {
            let (item, number) = try await task.value
            numbers[item] = number
        }
        let committed = batches.withLock { $0 }
        #expect(committed.count == 2, "\(committed)")
        #expect(committed.last.map(Set.init) == Set(1...20))
        // Each item's number is its place in its group, after the first group's one number.
        #expect(Set(numbers.values) == Set(2...21))
        for (offset, item) in (committed.last ?? []).enumerated() { #expect(numbers[item] == Int64(2 + offset)) }
    }

    /// Issue 27 part 4: every write of a group is told its number once the group is durable, before
    /// any of the group's writers resumes (the replica stages the group and applies it as one run).
    @Test func aGroupIsToldItsNumbersBeforeAnyOfItsWritersResumes() async throws {
        let gate = Gate()
        let told = Locked<[Int64]>([])
        let committing = Locked(false)
        let group = GroupCommit<Int>(maxBatch: 256) { items in
            if items == [0] {
                committing.withLock { $0 = true }
                await gate.wait()  // the first commit is slow: the others form the next group
            }
            return items == [0] ? 1 : 2
        }
        let first = Task { try await group.submit(0) }
        while !committing.withLock({ $0 }) { await Task.yield() }
        let rest = (1...5).map { item in
            Task { () -> (Int64, [Int64]) in
                let number = try await group.submit(item) { number in told.withLock { $0.append(number) } }
                return (number, told.withLock { $0 })
            }
        }
        while group.waitingCount < 5 { await Task.yield() }
        await gate.release()
        _ = try await first.value
        for task in rest {
            let (number, toldWhenResumed) = try await task.value
            #expect(Set(toldWhenResumed) == Set(2...6), "writer of \(number) resumed before its group was told")
        }
    }

    @Test func aFailedGroupFailsEachOfItsWritesAndTheNextGroupStillCommits() async throws {
        struct Refused: Error {}
        let calls = Locked(0)
        let group = GroupCommit<Int>(maxBatch: 4) { items in
            let call = calls.withLock { $0 += 1; return $0 }
            if call == 1 { throw Refused() }
            return 10
        }
        await #expect(throws: Refused.self) { try await group.submit(1) }
        #expect(try await group.submit(2) == 10)
    }

    /// With a limit, a group's commit is given the time its oldest write has left, never more.
    /// (A day: under ThreadSanitizer with every suite at once, a minute once passed before the
    /// group was taken, and the write expired.)
    @Test func aGroupIsGivenTheTimeItsOldestWriteHasLeft() async throws {
        let given = Locked<[Duration?]>([])
        let limit = Duration.seconds(86_400)
        let group = GroupCommit<Int>(maxBatch: 4, limit: limit, expired: { CancellationError() }) { items, left in
            given.withLock { $0.append(left) }
            return 1
        }
        #expect(try await group.submit(1) == 1)
        let left = try #require(given.withLock { $0 }.first ?? nil)
        #expect(left > .zero && left <= limit)
    }

    /// A write whose time ran out while it waited for a group is answered with the expiry and
    /// never committed (here at once: a limit of zero).
    @Test func aWriteWhoseTimeRanOutBeforeItsGroupIsNeverCommitted() async throws {
        struct Expired: Error {}
        let commits = Locked(0)
        let group = GroupCommit<Int>(maxBatch: 4, limit: .zero, expired: { Expired() }) { _, _ in
            commits.withLock { $0 += 1 }
            return 1
        }
        await #expect(throws: Expired.self) { try await group.submit(1) }
        #expect(commits.withLock { $0 } == 0)
        #expect(group.waitingCount == 0)
    }

    /// Back-to-back groups are one busy stretch: `idle` (PostgreSQL: give the shared connection
    /// back) comes once the groups run out, not between two groups, and before a later write starts
    /// the next stretch.
    @Test func idleIsToldOnceTheGroupsRunOutNotBetweenThem() async throws {
        let gate = Gate()
        let events = Locked<[String]>([])
        let group = GroupCommit<Int>(
            maxBatch: 256, limit: .seconds(86_400), expired: { CancellationError() }, idle: { events.withLock { $0.append("idle") } }
        ) { items, _ in
            events.withLock { $0.append("commit \(items)") }
            if items == [0] { await gate.wait() }  // the others queue behind the first group
            return 1
        }
        let first = Task { try await group.submit(0) }
        while events.withLock({ $0.isEmpty }) { await Task.yield() }
        let second = Task { try await group.submit(1) }
        while group.waitingCount < 1 { await Task.yield() }
        await gate.release()
        _ = try await (first.value, second.value)
        while events.withLock({ $0.count < 3 }) { await Task.yield() }
        #expect(events.withLock { $0 } == ["commit [0]", "commit [1]", "idle"])
        _ = try await group.submit(2)
        while events.withLock({ $0.count < 5 }) { await Task.yield() }
        #expect(events.withLock { $0 } == ["commit [0]", "commit [1]", "idle", "commit [2]", "idle"])
    }

    /// The SQLite store commits concurrent upserts in groups: each gets its own number, the
    /// numbers are consecutive, and each write is in the store and its change log.
    @Test func concurrentUpsertsToSQLiteGetConsecutiveNumbersAndAreAllStored() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteStore(path: path)
        let writes = 64
        let numbers = try await withThrowingTaskGroup(of: (String, Int64).self) { group in
            for n in 0..<writes {
                group.addTask { ("w\(n)", try await store.commit(.upsert(id: "w\(n)", body: Data(#"{"n":\#(n)}"#.utf8)))) }
            }
            var numbers: [String: Int64] = [:]
            for try await (id, number) in group { numbers[id] = number }
            return numbers
        }
        #expect(Set(numbers.values) == Set(1...Int64(writes)))
        let snapshot = try await SQLiteStore(path: path).snapshot()
        #expect(snapshot.head == Int64(writes))
        #expect(Dictionary(uniqueKeysWithValues: snapshot.documents.map { ($0.id, $0.sequence) }) == numbers)
        #expect(snapshot.recentChanges.map(\.sequence) == Array(1...Int64(writes)))
        for change in snapshot.recentChanges {
            #expect(change.body == Data(#"{"n":\#(change.id.dropFirst())}"#.utf8))
        }
    }
}
