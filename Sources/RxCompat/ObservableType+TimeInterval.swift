import Foundation
import Rx

// Time arguments in seconds (`throttle(0.3, ...)`): RxSwift up to 4.x took `TimeInterval`;
// RxSwift 5.0 switched to `DispatchTimeInterval` (`.milliseconds(300)`) and deprecated the
// `Double` forms (#1472). The forwards convert to nanoseconds.

extension ObservableType {
    /// `throttle(.milliseconds(300), latest:scheduler:)` with the time in seconds.
    ///
    /// Semantics are RxSwift 3.0-5.x's, which RxSwift 6 keeps: the first element at once,
    /// then at most one per `dueTime` (the latest one when `latest`). Before 3.0 (the seeds'
    /// `rx_text` era) `throttle` was a synonym of `debounce`; RxSwift 3.0.0-beta.1 "corrects
    /// `throttle` operator behavior" and added `latest`. Port 2.x code with `debounce`.
    public func throttle(_ dueTime: TimeInterval, latest: Bool = true, scheduler: SchedulerType) -> Observable<Element> {
        throttle(dueTime.asRxTimeInterval, latest: latest, scheduler: scheduler)
    }

    /// `debounce(.milliseconds(300), scheduler:)` with the time in seconds (RxSwift 2.0-4.x).
    public func debounce(_ dueTime: TimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        debounce(dueTime.asRxTimeInterval, scheduler: scheduler)
    }

    /// `delay(.seconds(1), scheduler:)` with the time in seconds (RxSwift 3.0-4.x).
    public func delay(_ dueTime: TimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        delay(dueTime.asRxTimeInterval, scheduler: scheduler)
    }
}
