#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Represents an object that schedules units of work on the current thread.
///
/// The first `schedule` on a thread runs its action at once and then drains, in
/// order, everything scheduled meanwhile (a trampoline): recursive scheduling
/// does not grow the stack. `Observable` subscriptions go through it, as in RxSwift.
public final class CurrentThreadScheduler: ImmediateSchedulerType {
    /// The singleton instance of the current thread scheduler.
    public static let instance = CurrentThreadScheduler()

    private static let isScheduleRequiredKey: pthread_key_t = makeKey()
    private static let queueKey: pthread_key_t = makeKey()

    private static func makeKey() -> pthread_key_t {
        var key = pthread_key_t()
        guard pthread_key_create(&key, nil) == 0 else {
            rxFatalError("pthread_key_create failed")
        }
        return key
    }

    private static var activeMarker: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1)! }

    private init() {}

    /// Whether the caller must schedule to get trampolining (no trampoline runs on this thread).
    public static var isScheduleRequired: Bool {
        pthread_getspecific(isScheduleRequiredKey) == nil
    }

    private static func setScheduleRequired(_ required: Bool) {
        pthread_setspecific(isScheduleRequiredKey, required ? nil : activeMarker)
    }

    private final class TrampolineQueue {
        var items = Queue<ScheduledItemType>(capacity: 4)
    }

    private typealias ScheduledItemType = Cancelable & InvocableType

    private static var queue: TrampolineQueue? {
        guard let pointer = pthread_getspecific(queueKey) else { return nil }
        return Unmanaged<TrampolineQueue>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` now as the trampoline of this thread, then everything it scheduled.
    /// Only call it when `isScheduleRequired`.
    @inline(__always)
    static func runAsTrampoline<Result>(_ body: () -> Result) -> Result {
        setScheduleRequired(false)
        let result = body()
        if let pointer = pthread_getspecific(queueKey) {
            let queue = Unmanaged<TrampolineQueue>.fromOpaque(pointer).takeUnretainedValue()
            while let latest = queue.items.dequeue() {
                if latest.isDisposed { continue }
                latest.invoke()
            }
            pthread_setspecific(queueKey, nil)
            Unmanaged<TrampolineQueue>.fromOpaque(pointer).release()
        }
        setScheduleRequired(true)
        return result
    }

    /// Schedules an action to be executed on the current thread (now, or after the running action).
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        if CurrentThreadScheduler.isScheduleRequired {
            return CurrentThreadScheduler.runAsTrampoline { action(state) }
        }

        let queue: TrampolineQueue
        if let existing = CurrentThreadScheduler.queue {
            queue = existing
        } else {
            queue = TrampolineQueue()
            pthread_setspecific(CurrentThreadScheduler.queueKey, Unmanaged.passRetained(queue).toOpaque())
        }
        let scheduledItem = ScheduledItem(action: action, state: state)
        queue.items.enqueue(scheduledItem)
        return scheduledItem
    }
}
