/// A `SharedSequence` that can't error out, delivers serially on its sharing scheduler,
/// and replays nothing: a late subscriber gets only what happens after it arrives.
///
/// On a server: a change feed or event stream, one upstream subscription shared by every
/// client.
public typealias Signal<Element> = SharedSequence<SignalSharingStrategy, Element>

/// The strategy of `Signal`: `SharingScheduler.make()`, `share(scope: .whileConnected)`.
public struct SignalSharingStrategy: SharingStrategyProtocol {
    /// A new serial scheduler from `SharingScheduler.make`.
    public static var scheduler: any SchedulerType { SharingScheduler.make() }

    /// Shares one connection without replay; it ends when the last subscriber leaves.
    public static func share<Element>(_ source: Observable<Element>) -> Observable<Element> {
        source.share(scope: .whileConnected)
    }
}

extension SharedSequenceConvertibleType where SharingStrategy == SignalSharingStrategy {
    /// `self` as a `Signal`.
    public func asSignal() -> Signal<Element> { asSharedSequence() }
}
