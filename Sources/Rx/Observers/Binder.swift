/// An observer that binds values to a target (RxSwift's `Binder`): elements are applied on
/// `scheduler` (``MainScheduler/instance`` by default) while the target is alive; the target is
/// held weakly; an error is a programmer error (stops a debug build, is ignored in release);
/// completion does nothing.
public struct Binder<Value>: ObserverType, @unchecked Sendable {
    // @unchecked: the binding hops onto `scheduler` before it touches the target.
    public typealias Element = Value

    private let binding: (Event<Value>) -> Void

    /// Binds to `target` through `binding`, run on `scheduler`.
    public init<Target: AnyObject>(
        _ target: Target, scheduler: any ImmediateSchedulerType = MainScheduler.instance,
        binding: @escaping (Target, Value) -> Void
    ) {
        nonisolated(unsafe) weak let weakTarget = target
        nonisolated(unsafe) let binding = binding
        self.binding = { event in
            switch event {
            case .next(let element):
                nonisolated(unsafe) let element = element
                _ = scheduler.schedule(()) { _ in
                    if let target = weakTarget { binding(target, element) }
                    return Disposables.create()
                }
            case .error(let error):
                rxFatalErrorInDebug("Binding error: \(error)")
            case .completed:
                break
            }
        }
    }

    /// Applies `event` to the target.
    public func on(_ event: Event<Value>) {
        binding(event)
    }

    /// Erases the type of this `Binder`.
    public func asObserver() -> AnyObserver<Value> {
        AnyObserver(eventHandler: on)
    }
}
