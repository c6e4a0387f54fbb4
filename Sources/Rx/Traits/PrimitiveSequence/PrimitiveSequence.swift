/// An observable sequence whose `Trait` proves, through the type system, how it may end.
///
/// `PrimitiveSequence<SingleTrait, E>` (`Single<E>`) emits one element or an error,
/// `PrimitiveSequence<MaybeTrait, E>` (`Maybe<E>`) emits at most one element, and
/// `PrimitiveSequence<CompletableTrait, Never>` (`Completable`) only completes or fails.
/// It is a thin builder around one `Observable`: the only ways to make one (`create`,
/// `just`, `asSingle()`, ...) keep the trait's property, and each operator returns the
/// trait that still holds (`map` on a `Single` is a `Single`, `filter` is a `Maybe`).
public struct PrimitiveSequence<Trait, Element>: Sendable {
    let source: Observable<Element>

    /// Wraps `source` without checking it: callers inside the module promise the trait holds.
    init(raw source: Observable<Element>) {
        self.source = source
    }
}

/// A type that is, or can present itself as, a `PrimitiveSequence`; trait operators are
/// defined on it.
public protocol PrimitiveSequenceType {
    /// The marker that names the property (`SingleTrait`, `MaybeTrait`, `CompletableTrait`).
    associatedtype Trait
    /// The type of the element the sequence may emit.
    associatedtype Element

    /// `self` as a `PrimitiveSequence`.
    var primitiveSequence: PrimitiveSequence<Trait, Element> { get }
}

extension PrimitiveSequence: PrimitiveSequenceType {
    /// `self`.
    public var primitiveSequence: PrimitiveSequence<Trait, Element> { self }
}

extension PrimitiveSequence: ObservableConvertibleType {
    /// The wrapped sequence, for use with every `Observable` operator.
    public func asObservable() -> Observable<Element> { source }
}

extension PrimitiveSequence {
    /// A sequence built by `factory` anew for every subscriber.
    public static func deferred(
        _ factory: @escaping () throws -> PrimitiveSequence<Trait, Element>
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: Observable.deferred { try factory().asObservable() })
    }

    /// Delivers the element (or completion) `dueTime` later on `scheduler`; errors are not delayed.
    public func delay(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.delay(dueTime, scheduler: scheduler))
    }

    /// Delivers the events on `scheduler`.
    public func observe(on scheduler: any ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.observe(on: scheduler))
    }

    /// Subscribes to (and disposes) the source on `scheduler`.
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.subscribe(on: scheduler))
    }

    /// Continues with the sequence `handler` returns for an error, keeping the trait.
    public func `catch`(
        _ handler: @escaping (Swift.Error) throws -> PrimitiveSequence<Trait, Element>
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.catch { try handler($0).asObservable() })
    }

    /// Resubscribes after an error, up to `maxAttemptCount` subscriptions in all.
    public func retry(_ maxAttemptCount: Int) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.retry(maxAttemptCount))
    }

    /// Fails with `RxError.timeout` when the sequence has not ended `dueTime` after subscription.
    public func timeout(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.timeout(dueTime, scheduler: scheduler))
    }

    /// Switches to `other` when the sequence has not ended `dueTime` after subscription.
    public func timeout(
        _ dueTime: RxTimeInterval,
        other: PrimitiveSequence<Trait, Element>,
        scheduler: any SchedulerType
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.timeout(dueTime, other: other.source, scheduler: scheduler))
    }
}

extension PrimitiveSequence {
    /// Prints every subscription, event and disposal (see `ObservableType.debug`).
    public func debug(_ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line, function: String = #function) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.debug(identifier, trimOutput: trimOutput, file: file, line: line, function: function))
    }

    /// Subscribes to the source only `dueTime` after the subscription.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.delaySubscription(dueTime, scheduler: scheduler))
    }

    /// Resubscribes after an error whenever the trigger built from the errors emits.
    public func retry<TriggerObservable: ObservableType>(when notificationHandler: @escaping (Observable<Swift.Error>) -> TriggerObservable) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: source.retry(when: notificationHandler))
    }
}
