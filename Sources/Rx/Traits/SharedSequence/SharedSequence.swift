/// A sequence that can't error out, delivers its events serially on the scheduler its
/// `SharingStrategy` names, and shares one subscription to its source among all subscribers.
///
/// `Driver` and `Signal` are its two strategies. The only ways in prove the properties
/// (`asDriver(onErrorJustReturn:)` and its twins: observe on the strategy's scheduler,
/// then catch, then share), and the only ways out (`drive`, `emit`) take no error handler.
/// Every operator re-applies the strategy's sharing to its result.
public struct SharedSequence<SharingStrategy: SharingStrategyProtocol, Element>: SharedSequenceConvertibleType, Sendable {
    let source: Observable<Element>

    /// Shares `source` with the strategy; the caller promises it can't error and delivers
    /// on the strategy's scheduler.
    init(_ source: Observable<Element>) {
        self.source = SharingStrategy.share(source)
    }

    /// Wraps `source` as is; the caller promises every property, sharing included.
    init(raw source: Observable<Element>) {
        self.source = source
    }

    /// The shared sequence, for use with every `Observable` operator.
    public func asObservable() -> Observable<Element> { source }

    /// `self`.
    public func asSharedSequence() -> SharedSequence<SharingStrategy, Element> { self }
}

/// How a `SharedSequence` delivers and shares: `DriverSharingStrategy`, `SignalSharingStrategy`.
public protocol SharingStrategyProtocol {
    /// A serial scheduler to deliver a new shared sequence's events on (read once per sequence).
    static var scheduler: any SchedulerType { get }

    /// Shares `source` among subscribers (`share(replay:scope:)` with the strategy's replay).
    static func share<Element>(_ source: Observable<Element>) -> Observable<Element>
}

/// A type that is, or can present itself as, a `SharedSequence`.
public protocol SharedSequenceConvertibleType: ObservableConvertibleType {
    /// The strategy of the shared sequence.
    associatedtype SharingStrategy: SharingStrategyProtocol

    /// `self` as a `SharedSequence`.
    func asSharedSequence() -> SharedSequence<SharingStrategy, Element>
}

extension SharedSequence {
    /// A sequence that completes at once, on the strategy's scheduler.
    public static func empty() -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.empty().subscribe(on: SharingStrategy.scheduler))
    }

    /// A sequence that never emits.
    public static func never() -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.never())
    }

    /// A sequence of `element`, then completion, on the strategy's scheduler.
    public static func just(_ element: Element) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.just(element).subscribe(on: SharingStrategy.scheduler))
    }

    /// A sequence of `elements`, then completion, on the strategy's scheduler.
    public static func of(_ elements: Element...) -> SharedSequence<SharingStrategy, Element> {
        from(elements)
    }

    /// A sequence of the elements of `sequence`, then completion, on the strategy's scheduler.
    public static func from<S: Sequence>(_ sequence: S) -> SharedSequence<SharingStrategy, Element>
    where S.Element == Element {
        SharedSequence(raw: Observable.from(sequence, scheduler: SharingStrategy.scheduler))
    }

    /// A sequence of the wrapped value, if any, then completion, on the strategy's scheduler.
    public static func from(optional: Element?) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(raw: Observable.from(optional: optional).subscribe(on: SharingStrategy.scheduler))
    }

    /// A shared sequence built by `factory` for each new connection.
    public static func deferred(
        _ factory: @escaping () -> SharedSequence<SharingStrategy, Element>
    ) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(Observable.deferred { factory().asObservable() })
    }
}

extension SharedSequence where Element: FixedWidthInteger {
    /// `0, 1, 2, ...`, one every `period`, on the strategy's scheduler.
    public static func interval(_ period: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(Observable.interval(period, scheduler: SharingStrategy.scheduler))
    }

    /// `0` after `dueTime`, then `1, 2, ...` every `period`, on the strategy's scheduler.
    public static func timer(_ dueTime: RxTimeInterval, period: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(Observable.timer(dueTime, period: period, scheduler: SharingStrategy.scheduler))
    }
}
