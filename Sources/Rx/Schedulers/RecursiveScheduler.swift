private enum ScheduleState {
    case initial
    case added(CompositeDisposable.DisposeKey)
    case done
}

/// Recursive scheduling on a `SchedulerType`, with or without delay.
/// Each scheduled step is tracked in `group` until it runs, so disposal cancels what is pending.
final class AnyRecursiveScheduler<State>: @unchecked Sendable {
    // `@unchecked`: `action` is guarded by `lock`; `group` is thread-safe.
    typealias Action = (State, AnyRecursiveScheduler<State>) -> Void

    private let lock = RecursiveLock()
    private let group = CompositeDisposable()
    private let scheduler: SchedulerType
    private var action: Action?

    init(scheduler: SchedulerType, action: @escaping Action) {
        self.action = action
        self.scheduler = scheduler
    }

    /// Schedules the action again after `dueTime`.
    func schedule(_ state: State, dueTime: RxTimeInterval) {
        track { step in scheduler.scheduleRelative(state, dueTime: dueTime, action: step) }
    }

    /// Schedules the action again as soon as possible.
    func schedule(_ state: State) {
        track { step in scheduler.schedule(state, action: step) }
    }

    private func track(_ scheduleStep: (@escaping (State) -> Disposable) -> Disposable) {
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
            action?(state, self)
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

/// Recursive scheduling on an `ImmediateSchedulerType`.
final class RecursiveImmediateScheduler<State>: @unchecked Sendable {
    // `@unchecked`: `action` is guarded by `lock`; `group` is thread-safe.
    typealias Action = (_ state: State, _ recurse: (State) -> Void) -> Void

    private let lock = RecursiveLock()
    private let group = CompositeDisposable()
    private var action: Action?
    private let scheduler: ImmediateSchedulerType

    init(action: @escaping Action, scheduler: ImmediateSchedulerType) {
        self.action = action
        self.scheduler = scheduler
    }

    func schedule(_ state: State) {
        var scheduleState: ScheduleState = .initial
        let disposable = scheduler.schedule(state) { state -> Disposable in
            if self.group.isDisposed { return Disposables.create() }
            let action = self.lock.performLocked { () -> Action? in
                if case let .added(removeKey) = scheduleState {
                    self.group.remove(for: removeKey)
                }
                scheduleState = .done
                return self.action
            }
            action?(state, self.schedule)
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
