// `Single.create { try await ... }` (RxSwift 6.5): a `Single` whose element comes from async work.

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// A `Single` that runs `work` in a new task for each subscription and succeeds with its
    /// result or fails with its error. Disposing the subscription cancels the task.
    ///
    /// - Parameters:
    ///   - detached: run `work` in a detached task rather than one that inherits the caller's context.
    ///   - priority: the task's priority.
    ///   - work: the async work that makes the element.
    public static func create(
        detached: Bool = false,
        priority: TaskPriority? = nil,
        work: @Sendable @escaping () async throws -> Element
    ) -> Single<Element> {
        .create { single in
            let operation: @Sendable () async -> Void = {
                do {
                    single(.success(try await work()))
                } catch {
                    single(.failure(error))
                }
            }
            let task = detached ? Task.detached(priority: priority, operation: operation) : Task(priority: priority, operation: operation)
            return Disposables.create { task.cancel() }
        }
    }
}
