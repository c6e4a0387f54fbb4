private enum ScheduleState {
    case initial
    case added(CompositeDisposable.DisposeKey)
    case done
}

/// Tracks the steps of a recursive schedule: each scheduled step stays in `group`
/// until it runs, so disposal cancels whatever is pending, and the action is
/// released on disposal to break the cycle it forms with its scheduler.
private final class RecursionTracker<Action>: @unchecked Sendable {
    // `@unchecked`: `action` is guarded by `lock`; `group` is thread-safe.
    private let lock = RecursiveLock()
    private let group = CompositeDisposable()
    private var action: Action?

    init(action: Action) {
        self.action = action
    }

    /// Schedules one step with `scheduleStep`; when it runs, `run` gets the action (nil once disposed).
    func track<State>(_ scheduleStep: (@escaping (State) -> Disposable) -> Disposable, run: @escaping (State, Action) -> Void) {
        var scheduleState: ScheduleState = .initial
        let disposable = scheduleStep { state in
            if self.group.isDisposed { return Disposables.create() }
            let action = self.lock.performLocked { () -> Action? in
                if case let .added(removeKey) = scheduleState {
                    self.group.remove(for: removeKey)
                }
                scheduleState = .done
                return self.action
            }
            if let action {
                run(state, action)
            }
            return Disposables.create()
        }
        lock.performLocked {
            switch scheduleState {
            case .added: rxFatalError("Invalid state")
            case .initial:
                if let removeKey = group.insert(disposable) {
                    scheduleState = .added(removeKey)
                } else {
                    scheduleState = .done
                }
            case .done: break
            }
        }
    }

    func dispose() {
        lock.performLocked { action = nil }
        group.dispose()
    }
}

/// Recursive scheduling on a `SchedulerType`, with or without delay.
final class AnyRecursiveScheduler<State>: @unchecked Sendable {
    // `@unchecked`: all state lives in the thread-safe tracker.
    typealias Action = (State, AnyRecursiveScheduler<State>) -> Void

    private let tracker: RecursionTracker<Action>
    private let scheduler: SchedulerType

    init(scheduler: SchedulerType, action: @escaping Action) {
        tracker = RecursionTracker(action: action)
        self.scheduler = scheduler
    }

    /// Schedules the action again after `dueTime`.
    func schedule(_ state: State, dueTime: RxTimeInterval) {
        tracker.track({ step in scheduler.scheduleRelative(state, dueTime: dueTime, action: step) }, run: { state, action in action(state, self) })
    }

    /// Schedules the action again as soon as possible.
    func schedule(_ state: State) {
        tracker.track({ step in scheduler.schedule(state, action: step) }, run: { state, action in action(state, self) })
    }

    func dispose() {
        tracker.dispose()
    }
}

/// Recursive scheduling on an `ImmediateSchedulerType`.
final class RecursiveImmediateScheduler<State>: @unchecked Sendable {
    // `@unchecked`: all state lives in the thread-safe tracker.
    typealias Action = (_ state: State, _ recurse: (State) -> Void) -> Void

    private let tracker: RecursionTracker<Action>
    private let scheduler: ImmediateSchedulerType

    init(action: @escaping Action, scheduler: ImmediateSchedulerType) {
        tracker = RecursionTracker(action: action)
        self.scheduler = scheduler
    }

    func schedule(_ state: State) {
        tracker.track({ step in scheduler.schedule(state, action: step) }, run: { state, action in action(state, self.schedule) })
    }

    func dispose() {
        tracker.dispose()
    }
}
