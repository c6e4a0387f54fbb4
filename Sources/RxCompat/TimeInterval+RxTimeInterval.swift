import Foundation
import Rx

extension TimeInterval {
    /// Seconds as RxSwift 5+'s `RxTimeInterval` (`DispatchTimeInterval`), to the nanosecond.
    /// Until RxSwift 5.0 `RxTimeInterval` was `TimeInterval` (seconds as a `Double`).
    var asRxTimeInterval: RxTimeInterval {
        .nanoseconds(Int((self * 1_000_000_000).rounded()))
    }
}
