import Rx

// Sharing operators deprecated in RxSwift 4.0.0-beta.1 in favour of `share(replay:scope:)`
// (#1430), which also made `publish`/`replay` start a fresh subject after termination.

extension ObservableType {
    /// `share(replay: bufferSize, scope: .forever)`: RxSwift 3.x's `shareReplay(n)` was
    /// `replay(n).refCount()` over one fixed `ReplaySubject`, so the buffer outlives the
    /// connection and a late subscriber after the source ended gets the buffer and the end;
    /// RxSwift 4's deprecation names `.forever` for "old 3.x behavior".
    public func shareReplay(_ bufferSize: Int) -> Observable<Element> {
        share(replay: bufferSize, scope: .forever)
    }

    /// `share(replay: 1, scope: .whileConnected)`: replays the latest element while at
    /// least one observer is subscribed; the buffer is cleared when the count drops to zero
    /// or the source terminates, and the next subscriber subscribes the source again.
    /// (Added in 2.0.0-beta.4; `Driver` shared this way until `share(replay:scope:)`.)
    public func shareReplayLatestWhileConnected() -> Observable<Element> {
        share(replay: 1, scope: .whileConnected)
    }
}
