import Foundation

/// Base class for virtual time schedulers using a priority queue for scheduled items.
///
/// Work runs only inside `start()` / `advanceTo(_:)`, on the calling thread, in
/// order of (time, scheduling order). Its state is guarded by a lock, so it may be
/// scheduled on from other threads, but tests drive it from one thread.
open class VirtualTimeScheduler<Converter: VirtualTimeConverterType>: SchedulerType, CustomDebugStringConvertible, @unchecked Sendable {
    // `@unchecked`: mutable state is guarded by `lock`; actions run outside it.

    /// Virtual time type.
    public typealias VirtualTime = Converter.VirtualTimeUnit
    /// Virtual time interval type.
    public typealias VirtualTimeInterval = Converter.VirtualTimeIntervalUnit

    private let lock = RecursiveLock()
    private var running = false
    private var currentClock: VirtualTime
    private var schedulerQueue: PriorityQueue<VirtualSchedulerItem<VirtualTime>>
    private let converter: Converter
    private var nextId = 0

    /// - returns: Current time.
    public var now: RxTime {
        converter.convertFromVirtualTime(clock)
    }

    /// - returns: Scheduler's absolute time clock value.
    public var clock: VirtualTime {
        lock.performLocked { currentClock }
    }

    /// Creates a new virtual time scheduler.
    public init(initialClock: VirtualTime, converter: Converter) {
        currentClock = initialClock
        self.converter = converter
        schedulerQueue = PriorityQueue(hasHigherPriority: {
            switch converter.compareVirtualTime($0.time, $1.time) {
            case .lessThan: return true
            case .equal: return $0.id < $1.id
            case .greaterThan: return false
            }
        })
        Resources.incrementTotal()
    }

    /// Schedules an action to be executed immediately (at the adjusted current time).
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleRelative(state, dueTime: .microseconds(0), action: action)
    }

    /// Schedules an action to be executed after `dueTime`.
    public func scheduleRelative<StateType>(_ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable) -> Disposable {
        let time = now.addingTimeInterval(dueTime.convertToSecondsInterval)
        let absoluteTime = converter.convertToVirtualTime(time)
        let adjustedTime = adjustScheduledTime(absoluteTime)
        return scheduleAbsoluteVirtual(state, time: adjustedTime, action: action)
    }

    /// Schedules an action to be executed after relative virtual time has passed.
    public func scheduleRelativeVirtual<StateType>(_ state: StateType, dueTime: VirtualTimeInterval, action: @escaping (StateType) -> Disposable) -> Disposable {
        let time = converter.offsetVirtualTime(clock, offset: dueTime)
        return scheduleAbsoluteVirtual(state, time: time, action: action)
    }

    /// Schedules an action to be executed at absolute virtual time.
    public func scheduleAbsoluteVirtual<StateType>(_ state: StateType, time: VirtualTime, action: @escaping (StateType) -> Disposable) -> Disposable {
        let compositeDisposable = CompositeDisposable()
        let item = lock.performLocked { () -> VirtualSchedulerItem<VirtualTime> in
            let item = VirtualSchedulerItem(action: { action(state) }, time: time, id: nextId)
            nextId += 1
            schedulerQueue.enqueue(item)
            return item
        }
        _ = compositeDisposable.insert(item)
        return compositeDisposable
    }

    /// Adjusts time of scheduling before adding item to schedule queue.
    open func adjustScheduledTime(_ time: VirtualTime) -> VirtualTime {
        time
    }

    /// Starts the virtual time scheduler: runs scheduled work until none is left or `stop()` is called.
    public func start() {
        let alreadyRunning = lock.performLocked { () -> Bool in
            if running { return true }
            running = true
            return false
        }
        if alreadyRunning { return }
        while let next = takeNext(until: nil) {
            next.invoke()
        }
        lock.performLocked { running = false }
    }

    /// Advances the scheduler's clock to the specified time, running all work till that point.
    public func advanceTo(_ virtualTime: VirtualTime) {
        lock.performLocked {
            if running { rxFatalError("Scheduler is already running") }
            running = true
        }
        while let next = takeNext(until: virtualTime) {
            next.invoke()
        }
        lock.performLocked {
            currentClock = virtualTime
            running = false
        }
    }

    /// Advances the scheduler's clock by the specified relative time, without running work.
    public func sleep(_ virtualInterval: VirtualTimeInterval) {
        lock.performLocked {
            let sleepTo = converter.offsetVirtualTime(currentClock, offset: virtualInterval)
            if converter.compareVirtualTime(sleepTo, currentClock).lessThan {
                rxFatalError("Can't sleep to past.")
            }
            currentClock = sleepTo
        }
    }

    /// Stops the virtual time scheduler.
    public func stop() {
        lock.performLocked { running = false }
    }

    /// Dequeues the next live item (not after `limit`) and moves the clock to its time.
    private func takeNext(until limit: VirtualTime?) -> VirtualSchedulerItem<VirtualTime>? {
        lock.performLocked {
            guard running else { return nil }
            while let front = schedulerQueue.peek() {
                if front.isDisposed {
                    schedulerQueue.remove(front)
                    continue
                }
                if let limit, converter.compareVirtualTime(front.time, limit).greaterThan {
                    return nil
                }
                if converter.compareVirtualTime(front.time, currentClock).greaterThan {
                    currentClock = front.time
                }
                schedulerQueue.remove(front)
                return front
            }
            return nil
        }
    }

    /// A textual representation of `self`, suitable for debugging.
    public var debugDescription: String {
        lock.performLocked { "VirtualTimeScheduler(clock: \(currentClock), pending: \(schedulerQueue.count))" }
    }

    deinit { Resources.decrementTotal() }
}

final class VirtualSchedulerItem<Time>: Disposable, @unchecked Sendable {
    // `@unchecked`: invoked once by the scheduler loop; disposal is atomic.
    let action: () -> Disposable
    let time: Time
    let id: Int
    private let disposable = SingleAssignmentDisposable()

    var isDisposed: Bool { disposable.isDisposed }

    init(action: @escaping () -> Disposable, time: Time, id: Int) {
        self.action = action
        self.time = time
        self.id = id
    }

    func invoke() {
        disposable.setDisposable(action())
    }

    func dispose() {
        disposable.dispose()
    }
}
