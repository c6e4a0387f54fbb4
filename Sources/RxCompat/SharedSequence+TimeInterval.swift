import Foundation
import Rx

extension SharedSequenceConvertibleType {
    /// RxCocoa 3.4-4.x's `throttle(_:latest:)` (3.0-3.3: `throttle(_:)`) with the time in
    /// seconds: RxSwift 6's
    /// `throttle(.milliseconds(300), latest:)`, timed on the sharing strategy's scheduler.
    public func throttle(_ dueTime: TimeInterval, latest: Bool = true) -> SharedSequence<SharingStrategy, Element> {
        throttle(dueTime.asRxTimeInterval, latest: latest)
    }

    /// `driver.throttle(0.3, scheduler: MainScheduler.instance)`, as the seeds' `Driver` example
    /// writes it (RxCocoa's 2.0 betas had `throttle(dueTime, scheduler)`; 3.0 and later take
    /// no scheduler). The timers run on `scheduler`, then elements hop to the sharing
    /// strategy's scheduler (`asSharedSequence`), which keeps the `Driver` guarantee for any
    /// `scheduler` at the cost of one hop.
    ///
    /// Throttle semantics (first element at once, then the latest per `dueTime`); in 2.x
    /// `throttle` meant `debounce` (see `ObservableType.throttle(_:latest:scheduler:)`).
    public func throttle(_ dueTime: TimeInterval, scheduler: SchedulerType) -> SharedSequence<SharingStrategy, Element> {
        asObservable()
            .throttle(dueTime.asRxTimeInterval, latest: true, scheduler: scheduler)
            .asSharedSequence(sharingStrategy: SharingStrategy.self, onErrorRecover: { _ in .empty() })
    }
}

extension SharedSequenceConvertibleType {
    /// `throttle(_:scheduler:)` with an `RxTimeInterval`, as `traits-ru.txt`'s `Driver`
    /// example writes it (`.throttle(.milliseconds(300), scheduler: MainScheduler.instance)`):
    /// RxCocoa 2.x's shape with RxSwift 5's time type, which no RxCocoa release had (5.x
    /// and 6 take no scheduler). Same forward as the `TimeInterval` form above.
    public func throttle(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> SharedSequence<SharingStrategy, Element> {
        asObservable()
            .throttle(dueTime, latest: true, scheduler: scheduler)
            .asSharedSequence(sharingStrategy: SharingStrategy.self, onErrorRecover: { _ in .empty() })
    }
}
