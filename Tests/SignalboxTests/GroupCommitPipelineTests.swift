import Base
import Testing
@testable import Signalbox

/// Issue 27 part 4: pipelined group commit. A group is numbered while the groups before it still
/// wait to be durable (their second stage), and groups are told and answered in the order they
/// were numbered, each only after its own second stage.
@Suite struct GroupCommitPipelineTests {
    typealias Gate = GroupCommitTests.Gate

    @Test func theNextGroupIsNumberedWhileThePreviousSettlesAndGroupsAreAnsweredInOrder() async throws {
        let gate = Gate()
        let events = Locked<[String]>([])
        let told = Locked<[Int64]>([])
        let head = Locked<Int64>(0)
        let group = GroupCommit<Int>(
            maxBatch: 256, limit: .seconds(86_400), expired: { CancellationError() }, idle: { events.withLock { $0.append("idle") } }
        ) { items, _ in
            let first = head.withLock { head in
                defer { head += Int64(items.count) }
                return head + 1
            }
            events.withLock { $0.append("number \(items)") }
            return { _ in
                if items == [0] { await gate.wait() }  // the first group's flush is slow
                events.withLock { $0.append("settled \(items)") }
                return first
            }
        }
        let first = Task { try await group.submit(0) { number in told.withLock { $0.append(number) } } }
        while !events.withLock({ $0.contains("number [0]") }) { await Task.yield() }
        let second = Task { try await group.submit(1) { number in told.withLock { $0.append(number) } } }
        // Numbered, and durable, while the first group still waits for its second stage.
        while !events.withLock({ $0.contains("settled [1]") }) { await Task.yield() }
        #expect(events.withLock { $0 } == ["number [0]", "number [1]", "settled [1]"])
        await gate.release()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        // Told in the order numbered, though the second group was durable first.
        #expect(told.withLock { $0 } == [1, 2])
        // The busy stretch ends once the last group settled, not when the queue ran out.
        while !events.withLock({ $0.contains("idle") }) { await Task.yield() }
        #expect(events.withLock { $0 } == ["number [0]", "number [1]", "settled [1]", "settled [0]", "idle"])
    }

    @Test func aGroupWhoseSecondStageFailsFailsAloneAndTheNextIsAnswered() async throws {
        struct Lost: Error {}
        let gate = Gate()
        let numbered = Locked<[[Int]]>([])
        let group = GroupCommit<Int>(maxBatch: 256, limit: .seconds(86_400), expired: { CancellationError() }) { items, _ in
            numbered.withLock { $0.append(items) }
            return { _ in
                if items == [0] {
                    await gate.wait()
                    throw Lost()
                }
                return 2
            }
        }
        let first = Task { try await group.submit(0) }
        while numbered.withLock({ $0.isEmpty }) { await Task.yield() }
        let second = Task { try await group.submit(1) }
        await gate.release()
        await #expect(throws: Lost.self) { try await first.value }
        #expect(try await second.value == 2)
    }

    /// A first stage that fails (the statement) fails its group, and later groups go on.
    @Test func aGroupWhoseNumberingFailsFailsAlone() async throws {
        struct Refused: Error {}
        let calls = Locked(0)
        let group = GroupCommit<Int>(maxBatch: 256, limit: .seconds(86_400), expired: { CancellationError() }) { _, _ in
            if calls.withLock({ $0 += 1; return $0 }) == 1 { throw Refused() }
            return { _ in 7 }
        }
        await #expect(throws: Refused.self) { try await group.submit(0) }
        #expect(try await group.submit(1) == 7)
    }

    /// At most `count` groups hold a lane; the next waits for one given back, a cancelled waiter
    /// stops waiting, and a lane given back twice counts once.
    @Test func lanesAreLentOneGroupEachAndWaitedFor() async throws {
        let lanes = CommitLanes(count: 2)
        let a = try await lanes.acquire(), b = try await lanes.acquire()
        #expect(lanes.freeCount == 0)
        let acquired = Locked(false)
        let third = Task {
            let lane = try await lanes.acquire()
            acquired.withLock { $0 = true }
            return lane
        }
        while lanes.waitingCount < 1 { await Task.yield() }
        let cancelled = Task { try await lanes.acquire() }
        while lanes.waitingCount < 2 { await Task.yield() }
        #expect(!acquired.withLock { $0 })
        a.release()
        a.release()  // counts once: the cancelled waiter must not get a lane from it
        let c = try await third.value
        #expect(c.session === a.session)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        b.release()
        c.release(broken: true)
        #expect(lanes.freeCount == 2)
    }
}
