import Synchronization

private enum SchedulePeriodicRecursiveCommand {
    case tick
    case dispatchStart
}

/// Periodic scheduling on top of recursive scheduling: each tick schedules the next
/// one first, then runs the work unless earlier work is still pending.
final class SchedulePeriodicRecursive<State>: @unchecked Sendable {
    // `@unchecked`: `state` is touched only by the serialized work items.
    private let scheduler: SchedulerType
    private let startAfter: RxTimeInterval
    private let period: RxTimeInterval
    private let action: (State) -> State
    private var state: State
    private let pendingTickCount = Atomic<Int>(0)

    init(scheduler: SchedulerType, startAfter: RxTimeInterval, period: RxTimeInterval, action: @escaping (State) -> State, state: State) {
        self.scheduler = scheduler
        self.startAfter = startAfter
        self.period = period
        self.action = action
        self.state = state
    }

    func start() -> Disposable {
        scheduler.scheduleRecursive(SchedulePeriodicRecursiveCommand.tick, dueTime: startAfter, action: tick)
    }

    private func tick(_ command: SchedulePeriodicRecursiveCommand, scheduler: AnyRecursiveScheduler<SchedulePeriodicRecursiveCommand>) {
        switch command {
        case .tick:
            scheduler.schedule(.tick, dueTime: period)
            // Run now unless work from an earlier tick is still queued.
            if pendingTickCount.add(1, ordering: .acquiringAndReleasing).oldValue == 0 {
                tick(.dispatchStart, scheduler: scheduler)
            }
        case .dispatchStart:
            state = action(state)
            if pendingTickCount.subtract(1, ordering: .acquiringAndReleasing).oldValue > 1 {
                scheduler.schedule(SchedulePeriodicRecursiveCommand.dispatchStart)
            }
        }
    }
}
