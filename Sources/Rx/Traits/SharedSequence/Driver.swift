/// A `SharedSequence` that can't error out, delivers serially on its sharing scheduler,
/// and replays its latest element: a late subscriber gets it at once, then every change.
///
/// The replayed element reaches a late subscriber synchronously inside `subscribe`, on
/// the subscribing thread; later elements come from the sharing scheduler, never
/// overlapping with it.
///
/// On a server: a shared lookup cache (one computation per key for all concurrent
/// requests, the latest result replayed to later ones), or the current value of a
/// setting followed by its changes.
public typealias Driver<Element> = SharedSequence<DriverSharingStrategy, Element>

/// The strategy of `Driver`: `SharingScheduler.make()`, `share(replay: 1, scope: .whileConnected)`.
public struct DriverSharingStrategy: SharingStrategyProtocol {
    /// A new serial scheduler from `SharingScheduler.make`.
    public static var scheduler: any SchedulerType { SharingScheduler.make() }

    /// Shares one connection and replays the latest element; the connection and its
    /// buffer end when the last subscriber leaves.
    public static func share<Element>(_ source: Observable<Element>) -> Observable<Element> {
        source.share(replay: 1, scope: .whileConnected)
    }
}

extension SharedSequenceConvertibleType where SharingStrategy == DriverSharingStrategy {
    /// `self` as a `Driver`.
    public func asDriver() -> Driver<Element> { asSharedSequence() }
}
