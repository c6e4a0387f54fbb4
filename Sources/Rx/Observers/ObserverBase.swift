import Synchronization

/// Observer base that stops at the first terminal event.
class ObserverBase<Element>: Disposable, ObserverType, @unchecked Sendable {
    // `@unchecked`: the only mutable state is the atomic `isStopped`.
    private let isStopped = Atomic<Bool>(false)

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if !isStopped.load(ordering: .relaxed) {
                onCore(event)
            }
        case .error, .completed:
            if !isStopped.exchange(true, ordering: .acquiringAndReleasing) {
                onCore(event)
            }
        }
    }

    func onNext(_ element: Element) {
        if !isStopped.load(ordering: .relaxed) {
            onNextCore(element)
        }
    }

    func onCore(_ event: Event<Element>) {
        rxAbstractMethod()
    }

    /// Delivers an element; defaults to `onCore(.next(element))`.
    func onNextCore(_ element: Element) {
        onCore(.next(element))
    }

    func dispose() {
        isStopped.store(true, ordering: .releasing)
    }
}
