// Relays never error, so they convert without a fallback.

extension BehaviorRelay {
    /// A `Driver` of the relay's current value, then its changes.
    public func asDriver() -> Driver<Element> {
        Driver(asObservable().observe(on: DriverSharingStrategy.scheduler))
    }
}

extension PublishRelay {
    /// A `Signal` of the elements accepted after subscription.
    public func asSignal() -> Signal<Element> {
        Signal(asObservable().observe(on: SignalSharingStrategy.scheduler))
    }
}
