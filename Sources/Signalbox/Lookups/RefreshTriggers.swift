import Rx

extension PublishRelay where Element == Void {
    /// One trigger now, then one per `accept`, for a live query's recomputation.
    ///
    /// The relay is subscribed before the first trigger goes out, so a write that refreshes the
    /// relay while the first result is being computed is not lost (`startWith(())` sends first and
    /// subscribes after). Merge's lock keeps the triggers serial: such a write waits for the first
    /// result, then computes the next.
    func triggers() -> Observable<Void> {
        Observable.merge(asObservable(), .just(()))
    }
}
