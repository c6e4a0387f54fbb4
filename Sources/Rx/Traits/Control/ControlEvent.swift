/// A type that is, or can present itself as, a `ControlEvent`.
public protocol ControlEventType: ObservableType {
    /// `self` as a `ControlEvent`.
    func asControlEvent() -> ControlEvent<Element>
}

/// A stream of events that never errors and has no initial value: the server-side
/// analogue of RxCocoa's `ControlEvent`, for the server's own lifecycle (started,
/// draining, stopped) or other occurrences that matter only to whoever listens now.
///
/// Its events are delivered serially on one scheduler from `SharingScheduler.make()`
/// (RxCocoa subscribes on the main thread because UIKit emits there; on a server the
/// sources emit from any thread, so the property that matters is `observe(on:)`), and
/// one subscription to the source is shared by all subscribers, without replay.
/// An error from the source ends the stream with completion, so none can escape.
public struct ControlEvent<PropertyType>: ControlEventType, Sendable {
    /// The type of the events.
    public typealias Element = PropertyType

    let events: Observable<PropertyType>

    /// Wraps `events`, delivering them serially on a sharing scheduler and sharing them.
    public init<Events: ObservableType>(events: Events) where Events.Element == Element {
        self.events = events.asObservable()
            .catch { _ in Observable.empty() }
            .observe(on: SharingScheduler.make())
            .share(scope: .whileConnected)
    }

    /// Wraps `events` as is; the caller promises every property.
    init(raw events: Observable<PropertyType>) {
        self.events = events
    }

    /// Subscribes `observer` to the events after this moment.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        events.subscribe(observer)
    }

    /// The shared sequence of events.
    public func asObservable() -> Observable<Element> { events }

    /// `self`.
    public func asControlEvent() -> ControlEvent<Element> { self }

    /// A `Signal` of the events: a `ControlEvent` already has every property of one.
    public func asSignal() -> Signal<Element> { Signal(raw: events) }

    /// A `Driver` of the events, whose late subscribers get the latest event at once.
    public func asDriver() -> Driver<Element> { Driver(events) }
}
