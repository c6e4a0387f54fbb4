import Foundation
import Rx
import Synchronization
import Testing
@testable import Signalbox

@Suite struct RefreshTriggersTests {
    /// A live query computes its first result on the first trigger: a write that refreshes it
    /// meanwhile must find it subscribed, or the client keeps a result without that write.
    @Test func theRelayIsSubscribedBeforeTheFirstTrigger() {
        let refresh = PublishRelay<Void>()
        let subscribedAtFirst = Mutex<Bool?>(nil)
        let triggers = Mutex(0)
        let subscription = refresh.triggers().subscribe(onNext: {
            subscribedAtFirst.withLock { if $0 == nil { $0 = refresh.hasObservers } }
            triggers.withLock { $0 += 1 }
        })
        defer { subscription.dispose() }
        #expect(subscribedAtFirst.withLock { $0 } == true)
        refresh.accept(())
        #expect(triggers.withLock { $0 } == 2)
    }

    /// A refresh accepted on another thread while the first trigger is handled comes after it,
    /// never beside it.
    @Test func aRefreshDuringTheFirstTriggerFollowsIt() async {
        let refresh = PublishRelay<Void>()
        let handling = Mutex(false)
        let overlapped = Mutex(false)
        let count = Mutex(0)
        var subscription: Disposable?
        await withCheckedContinuation { (second: CheckedContinuation<Void, Never>) in
            subscription = refresh.triggers().subscribe(onNext: {
                if handling.withLock({ busy in defer { busy = true }; return busy }) { overlapped.withLock { $0 = true } }
                let n = count.withLock { n in n += 1; return n }
                if n == 1 { Thread.detachNewThread { refresh.accept(()) } }
                handling.withLock { $0 = false }
                if n == 2 { second.resume() }
            })
        }
        subscription?.dispose()
        #expect(!overlapped.withLock { $0 })
    }
}
