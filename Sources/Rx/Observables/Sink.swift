import Synchronization

/// Per-subscription state of an operator: forwards events to `observer` until disposed.
///
/// `@unchecked Sendable`: a sink receives events serially (the grammar of its source,
/// or its own lock where it merges sources); `disposed` is atomic.
class Sink<Observer: ObserverType>: Disposable, @unchecked Sendable {
    let observer: Observer
    let cancel: Cancelable
    private let disposed = Atomic<Bool>(false)

    init(observer: Observer, cancel: Cancelable) {
        Resources.incrementTotal()
        self.observer = observer
        self.cancel = cancel
    }

    @inline(__always)
    final func forwardOn(_ event: Event<Observer.Element>) {
        if disposed.load(ordering: .relaxed) { return }
        observer.on(event)
    }

    /// `forwardOn(.next(element))` without building an `Event`.
    @inline(__always)
    final func forwardNext(_ element: Observer.Element) {
        if disposed.load(ordering: .relaxed) { return }
        observer.onNext(element)
    }

    /// `forwardOn(.error(error))`, out of line: an operator's element path that may fail
    /// (a throwing predicate) then builds no `Event` itself, and unspecialized generic code pays
    /// a metadata look-up (about 320 instructions) for every function that does, on every element.
    @inline(never)
    final func forwardError(_ error: Swift.Error) {
        forwardOn(.error(error))
    }

    /// `forwardOn(.completed)`, out of line for the same reason: an operator that changes the
    /// element type then builds no `Event` of its result type in `on(_:)`.
    @inline(never)
    final func forwardCompleted() {
        forwardOn(.completed)
    }

    final func forwarder() -> SinkForward<Observer> {
        SinkForward(forward: self)
    }

    final var isDisposed: Bool {
        disposed.load(ordering: .acquiring)
    }

    func dispose() {
        disposed.store(true, ordering: .releasing)
        cancel.dispose()
    }

    deinit {
        Resources.decrementTotal()
    }
}

/// An observer that forwards to a sink's observer through `forwardOn`, disposing on terminal events.
struct SinkForward<Observer: ObserverType>: ObserverType {
    typealias Element = Observer.Element

    private let forward: Sink<Observer>

    init(forward: Sink<Observer>) {
        self.forward = forward
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            forward.observer.on(event)
        case .error, .completed:
            forward.observer.on(event)
            forward.cancel.dispose()
        }
    }
}
