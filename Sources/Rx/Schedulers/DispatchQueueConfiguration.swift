import Dispatch
import Foundation

/// Scheduling on a Dispatch queue, shared by the Dispatch-backed schedulers.
struct DispatchQueueConfiguration: Sendable {
    let queue: DispatchQueue
    let leeway: DispatchTimeInterval

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let cancel = SingleAssignmentDisposable()
        let work = UnsafeTransfer((state, action))
        queue.async {
            if cancel.isDisposed { return }
            cancel.setDisposable(work.value.1(work.value.0))
        }
        return cancel
    }

    func scheduleRelative<StateType>(_ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable) -> Disposable {
        let deadline = DispatchTime.now() + dueTime
        let compositeDisposable = CompositeDisposable()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: deadline, leeway: leeway)
        let timerReference = UnsafeTransfer(timer)
        // Cancelling the source releases its handler, and with it the action.
        let cancelTimer = Disposables.create { timerReference.value.cancel() }
        let work = UnsafeTransfer((state, action))
        timer.setEventHandler {
            if compositeDisposable.isDisposed { return }
            _ = compositeDisposable.insert(work.value.1(work.value.0))
            cancelTimer.dispose()
        }
        timer.resume()
        _ = compositeDisposable.insert(cancelTimer)
        return compositeDisposable
    }

    func schedulePeriodic<StateType>(_ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval, action: @escaping (StateType) -> StateType) -> Disposable {
        let initial = DispatchTime.now() + startAfter
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: initial, repeating: period, leeway: leeway)
        let timerReference = UnsafeTransfer(timer)
        let cancelTimer = Disposables.create { timerReference.value.cancel() }
        // The timer's handler never runs concurrently with itself, so the state box is serialized.
        let box = UnsafeTransfer(PeriodicState(state: state, action: action))
        timer.setEventHandler {
            if cancelTimer.isDisposed { return }
            box.value.state = box.value.action(box.value.state)
        }
        timer.resume()
        return cancelTimer
    }
}

private final class PeriodicState<StateType> {
    var state: StateType
    let action: (StateType) -> StateType

    init(state: StateType, action: @escaping (StateType) -> StateType) {
        self.state = state
        self.action = action
    }
}
