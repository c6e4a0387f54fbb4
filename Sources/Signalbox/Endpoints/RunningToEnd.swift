import Rx

/// A write's answer as a `Single`: the work runs to its end even if the client leaves (an
/// accepted write is never half done); what it throws is answered as `problem` makes it.
func runningToEnd<Element: Sendable>(
    _ work: @escaping @Sendable () async throws -> Element,
    problem: @escaping @Sendable (any Error) -> any Error
) -> Single<Element> {
    Single.create { observer in
        Task {
            do {
                observer(.success(try await work()))
            } catch {
                observer(.failure(problem(error)))
            }
        }
        return Disposables.create()
    }
}
