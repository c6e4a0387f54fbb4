/// A type that is, or can present itself as, a `ControlProperty`; it is also an observer
/// that sets the property.
public protocol ControlPropertyType: ObservableType, ObserverType {
    /// `self` as a `ControlProperty`.
    func asControlProperty() -> ControlProperty<Element>
}

/// A value that changes over time and never errors: the server-side analogue of RxCocoa's
/// `ControlProperty`, for live configuration (a limit, a feature flag) that the admin
/// endpoint or a reload sets and the service reads.
///
/// A subscriber gets the current value at once, then every change. Setting goes through
/// the observer side (`onNext`, or `drive(property)` from a `Driver`). The values are
/// delivered serially on one scheduler from `SharingScheduler.make()` and shared by all
/// subscribers with the latest value replayed (RxCocoa subscribes on the main thread
/// because UIKit emits there; on a server writers come from any thread, so the property
/// that matters is `observe(on:)`). An error from the source ends the values with
/// completion, and an error sent to the observer side is ignored, so none can escape.
public struct ControlProperty<PropertyType>: ControlPropertyType, Sendable {
    /// The type of the value.
    public typealias Element = PropertyType

    let values: Observable<PropertyType>
    let valueSink: AnyObserver<PropertyType>

    /// A property whose current value and changes come from `values` and whose writes go
    /// to `valueSink`. `values` should emit the current value on subscription.
    public init<Values: ObservableType, Sink: ObserverType>(values: Values, valueSink: Sink)
    where Values.Element == Element, Sink.Element == Element {
        self.values = values.asObservable()
            .catch { _ in Observable.empty() }
            .observe(on: SharingScheduler.make())
            .share(replay: 1, scope: .whileConnected)
        self.valueSink = valueSink.asObserver()
    }

    /// A property that starts at `relay.value` and accepts writes into `relay`.
    public init(relay: BehaviorRelay<Element>) {
        self.init(values: relay.asObservable(), valueSink: AnyObserver { event in
            if case .next(let value) = event { relay.accept(value) }
        })
    }

    /// Subscribes `observer` to the current value and then the changes.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        values.subscribe(observer)
    }

    /// The changes only, without the current value.
    public var changed: ControlEvent<PropertyType> {
        ControlEvent(raw: values.skip(1))  // already serial, shared and error-free
    }

    /// The shared sequence of values.
    public func asObservable() -> Observable<Element> { values }

    /// `self`.
    public func asControlProperty() -> ControlProperty<Element> { self }

    /// A `Driver` of the values: a `ControlProperty` already has every property of one.
    public func asDriver() -> Driver<Element> { Driver(raw: values) }

    /// Sets the value (`.next`) or ends the sink (`.completed`); errors are ignored,
    /// since a property can't fail.
    public func on(_ event: Event<Element>) {
        switch event {
        case .next, .completed: valueSink.on(event)
        case .error: break
        }
    }
}
