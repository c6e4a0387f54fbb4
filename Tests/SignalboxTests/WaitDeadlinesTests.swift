import Base
import Dispatch
import Testing
@testable import Signalbox

/// One timer bounds every write's wait for its change (``WaitDeadlines``): a wait nothing
/// finished ends `false` at its deadline, an earlier deadline added later is not held behind a
/// later one's timer, and finished waits are dropped.
@Suite(.timeLimit(.minutes(1))) struct WaitDeadlinesTests {
    @Test func aWaitNothingFinishesEndsFalseAtItsDeadline() async {
        let deadlines = WaitDeadlines(label: "test.deadlines")
        let started = DispatchTime.now()
        let served = await withCheckedContinuation { continuation in
            deadlines.add(AppliedWaiter(continuation), deadline: .now() + .milliseconds(20))
        }
        #expect(served == false)
        #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds >= 20_000_000)
    }

    /// The timer armed for a day must not hold a wait of milliseconds added after it.
    @Test func anEarlierDeadlineAddedLaterEndsFirst() async {
        let deadlines = WaitDeadlines(label: "test.deadlines")
        let long = Locked<AppliedWaiter?>(nil)
        let longResult = Task {
            await withCheckedContinuation { continuation in
                let waiter = AppliedWaiter(continuation)
                long.withLock { $0 = waiter }
                deadlines.add(waiter, deadline: .now() + .seconds(86_400))
            }
        }
        while long.withLock({ $0 == nil }) { await Task.yield() }
        let short = await withCheckedContinuation { continuation in
            deadlines.add(AppliedWaiter(continuation), deadline: .now() + .milliseconds(20))
        }
        #expect(short == false)
        long.withLock { $0 }?.finish(true)
        #expect(await longResult.value == true)
    }

    @Test func finishedWaitsAreDroppedAsNewOnesCome() async {
        let deadlines = WaitDeadlines(label: "test.deadlines")
        var waiters: [AppliedWaiter] = []
        var results: [Task<Bool, Never>] = []
        for _ in 0..<10 {
            let holder = Locked<AppliedWaiter?>(nil)
            results.append(Task {
                await withCheckedContinuation { continuation in
                    let waiter = AppliedWaiter(continuation)
                    holder.withLock { $0 = waiter }
                    deadlines.add(waiter, deadline: .now() + .seconds(86_400))
                }
            })
            while holder.withLock({ $0 == nil }) { await Task.yield() }
            waiters.append(holder.withLock { $0 }!)
        }
        #expect(deadlines.heldCount == 10)
        for waiter in waiters { waiter.finish(true) }
        for result in results { #expect(await result.value == true) }
        // The next wait clears the finished ones in front of it.
        let last = Task { await withCheckedContinuation { deadlines.add(AppliedWaiter($0), deadline: .now() + .milliseconds(1)) } }
        #expect(await last.value == false)
        #expect(deadlines.heldCount == 0)
    }

    /// A wait still waiting at the front must not keep every finished one behind it.
    @Test func finishedWaitsBehindOneStillWaitingAreSweptOut() async {
        let deadlines = WaitDeadlines(label: "test.deadlines")
        let front = Locked<AppliedWaiter?>(nil)
        let frontResult = Task {
            await withCheckedContinuation { continuation in
                let waiter = AppliedWaiter(continuation)
                front.withLock { $0 = waiter }
                deadlines.add(waiter, deadline: .now() + .seconds(86_400))
            }
        }
        while front.withLock({ $0 == nil }) { await Task.yield() }
        for _ in 0..<5_000 {
            let served = await withCheckedContinuation { continuation in
                let waiter = AppliedWaiter(continuation)
                deadlines.add(waiter, deadline: .now() + .seconds(86_400))
                waiter.finish(true)
            }
            #expect(served)
        }
        #expect(deadlines.heldCount <= 2_048)
        front.withLock { $0 }?.finish(true)
        #expect(await frontResult.value == true)
    }
}
