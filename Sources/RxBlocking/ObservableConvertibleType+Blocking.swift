import Foundation
import Rx

extension ObservableConvertibleType {
    /// A blocking view of the sequence, for tests and command-line tools.
    ///
    /// - parameter timeout: Maximum time to wait for the sequence to end; past it, the
    ///   operators throw (or `materialize` fails with) `RxError.timeout`. `nil` waits forever.
    public func toBlocking(timeout: TimeInterval? = nil) -> BlockingObservable<Element> {
        BlockingObservable(timeout: timeout, source: asObservable())
    }
}
