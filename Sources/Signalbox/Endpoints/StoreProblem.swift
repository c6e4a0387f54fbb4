import HTTP
import HTTPTypes
import Rx

/// How the endpoints answer a store that could not take a write: never a 204, a problem the
/// client can act on instead.
enum StoreProblem {
    /// Seconds a client should wait before retrying a write the store could not take.
    static let retryAfterSeconds = 1

    /// The HTTP error for a ``StoreError``; other errors pass unchanged.
    static func httpError(for error: any Error) -> any Error {
        switch error as? StoreError {
        case .full(let detail)?:
            // 507 (RFC 4918 §11.5): the write was not made; it may succeed once space is freed.
            return HTTPError(
                .init(code: 507, reasonPhrase: "Insufficient Storage"),
                detail: "The write was not stored: \(detail). Nothing was changed; retry later.",
                headerFields: [.retryAfter: "\(retryAfterSeconds)"])
        case .unavailable(let detail)?:
            return HTTPError(
                .serviceUnavailable, detail: "The write was not stored: \(detail). Nothing was changed; retry later.",
                headerFields: [.retryAfter: "\(retryAfterSeconds)"])
        case nil:
            return error
        }
    }
}

extension Completable {
    /// Answers store failures as problems (507, 503) rather than a bare 500.
    func mappingStoreErrors() -> Completable {
        self.catch { error in throw StoreProblem.httpError(for: error) }
    }
}
