import HTTP
import HTTPTypes
import Rx

/// The domain's errors as the problems a client gets, mapped here at the endpoint edge:
/// a write the store could not confirm is never acknowledged with 204.
enum StoreProblem {
    /// Seconds a client should wait before retrying a write, or a read held for a sequence number.
    static let retryAfterSeconds = 1

    /// The HTTP error for a store or replication error; other errors pass unchanged.
    static func httpError(for error: any Error) -> any Error {
        let retryAfter: HTTPFields = [.retryAfter: "\(retryAfterSeconds)"]
        switch error {
        case let missing as DocumentNotFound:
            return HTTPError(.notFound, detail: "No document has the id \(missing.id).")
        case StoreError.full(let detail):
            // 507 (RFC 4918 §11.5): the write was not made; it may succeed once space is freed.
            return HTTPError(
                .init(code: 507, reasonPhrase: "Insufficient Storage"),
                detail: "The write was not stored: \(detail). Nothing was changed; retry later.",
                headerFields: retryAfter)
        case StoreError.unavailable(let detail):
            return HTTPError(
                .serviceUnavailable,
                detail: "The write was not acknowledged: \(detail). Retry; a PUT is safe to repeat.",
                headerFields: retryAfter)
        case let late as NotAppliedInTime where late.isDurableWrite:
            // Not 204: searches here do not find it yet. Its number lets the client read it with Signalbox-Min-Seq.
            var fields = retryAfter
            fields[WriteReceipt.sequenceField] = String(late.sequence)
            let why =
                late.waitsForRebuild
                ? "its document does not fit the old schema of the index that serves until the collection's new one "
                    + "(a schema change in progress) takes over, which it did not within"
                : "this replica has not applied it within"
            return HTTPError(
                .serviceUnavailable,
                detail: "The write is durable (change \(late.sequence)), but \(why) \(late.waitedDescription) (writes.applyWait): "
                    + "searches here do not find it yet. It will be applied; a PUT is safe to repeat.",
                headerFields: fields)
        case let late as NotAppliedInTime where late.waitsForRebuild:
            return HTTPError(
                .serviceUnavailable,
                detail: "This replica has applied change \(late.sequence), but a document it wrote does not fit the old schema "
                    + "of the index that serves until the collection's new one (a schema change in progress) takes over, "
                    + "which it did not within \(late.waitedDescription) (cluster.readWait): searches here do not find it yet.",
                headerFields: retryAfter)
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

extension StoreProblem {
    /// A write's answer: a `Single` of `work`, run to its end even if the client leaves, what it
    /// throws answered as ``httpError(for:)`` makes it (one `Single`, no operator chain around it).
    static func write<Element: Sendable>(_ work: @escaping @Sendable () async throws -> Element) -> Single<Element> {
        runningToEnd(work, problem: httpError(for:))
    }
}
