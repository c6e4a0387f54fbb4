import Base
import Dispatch
import Foundation

/// The process-wide serial scheduler, under RxSwift's name.
///
/// In RxSwift it is the main thread. A server has no UI main thread (and `DispatchQueue.main`
/// runs only under `dispatchMain()`), so here it is one serial Dispatch queue for the whole
/// process, `signalbox.rx.main`. Code written for RxSwift (`observe(on: MainScheduler.instance)`,
/// `throttle(..., scheduler: MainScheduler.instance)`) compiles and gets the same guarantee:
/// work scheduled on it never overlaps. Everything on it is serialised, so keep it for light
/// coordination; per-stream work belongs on its own `SerialDispatchQueueScheduler`.
///
/// `instance` runs `schedule` inline when already on the queue with nothing queued before it
/// (as RxSwift's main scheduler does on the main thread); `asyncInstance` always enqueues.
public final class MainScheduler: SerialDispatchQueueScheduler, @unchecked Sendable {
    private static let queueKey = DispatchSpecificKey<Bool>()
    private static let queue: DispatchQueue = {
        let queue = DispatchQueue(label: "signalbox.rx.main")
        queue.setSpecific(key: queueKey, value: true)
        return queue
    }()

    private let runsInline: Bool
    private let numberEnqueued = Locked(0)

    private init(runsInline: Bool) {
        self.runsInline = runsInline
        super.init(serialQueue: MainScheduler.queue)
    }

    /// The process-wide serial scheduler; runs inline when already on its queue.
    public static let instance = MainScheduler(runsInline: true)

    /// The process-wide serial scheduler; always enqueues (never runs inline).
    public static let asyncInstance = MainScheduler(runsInline: false)

    /// Whether the caller runs on the scheduler's queue.
    public static var isOnQueue: Bool {
        DispatchQueue.getSpecific(key: queueKey) == true
    }

    /// Stops the process unless called on the scheduler's queue (RxSwift's `ensureExecutingOnScheduler`).
    public static func ensureExecutingOnScheduler(errorMessage: String? = nil) {
        if !isOnQueue {
            rxFatalError(errorMessage ?? "Executing on a thread other than MainScheduler's queue.")
        }
    }

    /// Schedules `action`: inline when on the queue with nothing queued ahead, else asynchronously.
    override func scheduleInternal<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let previouslyEnqueued = numberEnqueued.withLock { count -> Int in
            defer { count += 1 }
            return count
        }
        if runsInline && MainScheduler.isOnQueue && previouslyEnqueued == 0 {
            let disposable = action(state)
            numberEnqueued.withLock { $0 -= 1 }
            return disposable
        }
        let cancel = SingleAssignmentDisposable()
        let work = UnsafeTransfer((state, action))
        MainScheduler.queue.async {
            defer { self.numberEnqueued.withLock { $0 -= 1 } }
            if !cancel.isDisposed {
                cancel.setDisposable(work.value.1(work.value.0))
            }
        }
        return cancel
    }
}
