import HTTP
import HTTPTypes
import Rx

/// The domain's errors as the problems a client gets: mapped here, at the endpoint edge.
enum StoreProblems {
    /// Seconds a client is asked to wait before it retries a write or a read held for a sequence number.
    static let retryAfterSeconds = 1

    static func httpError(for error: any Error) -> any Error {
        let retryAfter: HTTPFields = [.retryAfter: String(retryAfterSeconds)]
        switch error {
        case let missing as DocumentNotFound:
            return HTTPError(.notFound, detail: "No document has the id \(missing.id).")
        case StoreError.unavailable:
            return HTTPError(
                .serviceUnavailable,
                detail: "The store did not confirm the write in time; it was not acknowledged. Retry; a PUT is safe to repeat.",
                headerFields: retryAfter)
        case StoreError.full:
            return HTTPError(
                .init(code: 507, reasonPhrase: "Insufficient Storage"),
                detail: "The store's disk is full: the write was not made durable.")
        case let late as NotAppliedInTime:
            return HTTPError(
                .serviceUnavailable,
                detail: "This replica has not applied change \(late.sequence) yet (waited \(late.waitedDescription)).",
                headerFields: retryAfter)
        default:
            return error
        }
    }
}

extension PrimitiveSequence where Trait == SingleTrait {
    /// The same Single with the domain's errors mapped to problems.
    func mapStoreProblems() -> Single<Element> {
        asObservable().catch { throw StoreProblems.httpError(for: $0) }.asSingle()
    }
}
