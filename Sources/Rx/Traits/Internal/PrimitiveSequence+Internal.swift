import Synchronization

/// Lets exactly one caller through, even when several threads race to emit: the trait
/// `create` callbacks use it so that only the first event of a subscription counts.
final class FirstEventGate: Sendable {
    private let passed = Atomic<Bool>(false)

    /// `true` for the first call only.
    func pass() -> Bool {
        !passed.exchange(true, ordering: .acquiringAndReleasing)
    }
}

extension Observable {
    /// The `Observable` behind a trait's `create`: `subscribe` gets a callback that any
    /// thread may call; the first call is turned into events by `forward`, later ones are
    /// dropped. `create`'s sink then disposes what `subscribe` returned.
    static func createPrimitive<TraitEvent>(
        _ subscribe: @escaping (@escaping @Sendable (TraitEvent) -> Void) -> Disposable,
        forward: @escaping @Sendable (TraitEvent, AnyObserver<Element>) -> Void
    ) -> Observable<Element> {
        Observable.create { observer in
            let gate = FirstEventGate()
            return subscribe { event in
                if gate.pass() { forward(event, observer) }
            }
        }
    }

    /// Subscribes `handler` to the first event only: a trait's subscriber gets one event.
    func subscribeFirstEvent(_ handler: @escaping (Event<Element>) -> Void) -> Disposable {
        subscribe(FirstEventObserver(handler))
    }
}

/// Passes on the first event it gets and drops the rest. One object rather than a
/// closure over a boxed flag: a trait subscription is short, so its allocations count.
private final class FirstEventObserver<Element>: ObserverType {
    private let handler: (Event<Element>) -> Void
    private var stopped = false  // events to one observer never overlap: no lock needed

    init(_ handler: @escaping (Event<Element>) -> Void) {
        self.handler = handler
    }

    func on(_ event: Event<Element>) {
        if stopped { return }
        stopped = true
        handler(event)
    }
}

/// Subscribes through `subscribe` and runs `onDisposed` exactly once: after the trait's
/// one event has been handled (`subscribe` calls `handled`), or at disposal before it.
/// Without `onDisposed` there is nothing to call: `handled` is `nil`.
func subscribeHandlers(
    onDisposed: (() -> Void)?,
    _ subscribe: (_ handled: (() -> Void)?) -> Disposable
) -> Disposable {
    guard let onDisposed else { return subscribe(nil) }
    let disposed = Disposables.create(with: onDisposed)
    return Disposables.create(subscribe { disposed.dispose() }, disposed)
}

/// `handler` with `object` held weakly: it does nothing once `object` is gone.
func weakly<Object: AnyObject, Value>(_ object: Object, _ handler: ((Object, Value) -> Void)?) -> ((Value) -> Void)? {
    guard let handler else { return nil }
    return { [weak object] value in
        if let object { handler(object, value) }
    }
}

/// `handler` with `object` held weakly: it does nothing once `object` is gone.
func weakly<Object: AnyObject>(_ object: Object, _ handler: ((Object) -> Void)?) -> (() -> Void)? {
    guard let handler else { return nil }
    return { [weak object] in
        if let object { handler(object) }
    }
}
