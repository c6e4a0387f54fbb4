// async/await bridges (RxSwift 6.5): sequences as `AsyncSequence`s and back.
// Cancelling the iterating `Task` (or dropping the stream) disposes the subscription.

extension ObservableConvertibleType {
    /// The elements as an `AsyncThrowingStream`: `for try await x in observable.values`.
    ///
    /// The stream buffers elements the consumer has not awaited yet (unbounded, as RxSwift).
    public var values: AsyncThrowingStream<Element, Swift.Error> {
        AsyncThrowingStream<Element, Swift.Error> { continuation in
            let disposable = asObservable().subscribe(
                onNext: { value in
                    // Elements are handed over, not shared: the subscription keeps no copy.
                    nonisolated(unsafe) let element = value
                    continuation.yield(element)
                },
                onError: { error in continuation.finish(throwing: error) },
                onCompleted: { continuation.finish() }
            )
            continuation.onTermination = { @Sendable _ in disposable.dispose() }
        }
    }
}

extension AsyncSequence {
    /// An `Observable` of the elements of `self`, iterated in a `Task` per subscription.
    ///
    /// Disposing the subscription cancels the task; a `CancellationError` completes the
    /// sequence, any other error fails it.
    public func asObservable() -> Observable<Element> {
        Observable.create { observer in
            // Iterated through a type-erased `next`, so the task captures no generic metatype.
            var iterator = makeAsyncIterator()
            let next = UnsafeTransfer({ try await iterator.next() })
            let task = Task {
                do {
                    while let value = try await next.value() {
                        observer.onNext(value)
                    }
                    observer.onCompleted()
                } catch is CancellationError {
                    observer.onCompleted()
                } catch {
                    observer.onError(error)
                }
            }
            return Disposables.create { task.cancel() }
        }
    }
}

/// Resumes a continuation once, from whichever comes first: the sequence's event or the
/// task's cancellation (which disposes the subscription and resumes with `CancellationError`).
final class AwaitedSubscription<Value>: @unchecked Sendable {
    // `@unchecked`: `continuation` and `resumed` are guarded by `lock`.
    private let lock = RecursiveLock()
    private var continuation: CheckedContinuation<UnsafeTransfer<Value>, Swift.Error>?
    let disposable = SingleAssignmentDisposable()

    func start(_ continuation: CheckedContinuation<UnsafeTransfer<Value>, Swift.Error>, subscribe: (AwaitedSubscription<Value>) -> Disposable) {
        lock.performLocked { self.continuation = continuation }
        if Task.isCancelled {
            cancel()
            return
        }
        disposable.setDisposable(subscribe(self))
    }

    func resume(_ result: Result<Value, Swift.Error>) {
        let continuation: CheckedContinuation<UnsafeTransfer<Value>, Swift.Error>? = lock.performLocked {
            defer { self.continuation = nil }
            return self.continuation
        }
        switch result {
        case .success(let value): continuation?.resume(returning: UnsafeTransfer(value))
        case .failure(let error): continuation?.resume(throwing: error)
        }
    }

    func cancel() {
        disposable.dispose()
        resume(.failure(CancellationError()))
    }

    /// Awaits the result `subscribe` delivers through `resume`.
    static func value(_ subscribe: (AwaitedSubscription<Value>) -> Disposable) async throws -> Value {
        let awaited = AwaitedSubscription<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                awaited.start(continuation, subscribe: subscribe)
            }.value
        } onCancel: {
            awaited.cancel()
        }
    }
}
