/// A unit of work queued on a scheduler, cancelable until it runs.
protocol InvocableType {
    func invoke()
}

final class ScheduledItem<T>: Cancelable, InvocableType, @unchecked Sendable {
    // `@unchecked`: the item is invoked once, by the scheduler that queued it.
    private let action: (T) -> Disposable
    private let state: T
    private let disposable = SingleAssignmentDisposable()

    init(action: @escaping (T) -> Disposable, state: T) {
        self.action = action
        self.state = state
    }

    var isDisposed: Bool { disposable.isDisposed }

    func invoke() {
        disposable.setDisposable(action(state))
    }

    func dispose() {
        disposable.dispose()
    }
}
