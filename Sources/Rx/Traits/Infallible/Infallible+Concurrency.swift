extension InfallibleType {
    /// The elements as an `AsyncStream`: `for await x in infallible.values`.
    public var values: AsyncStream<Element> {
        AsyncStream<Element> { continuation in
            let disposable = subscribe(
                onNext: { value in
                    // Elements are handed over, not shared: the subscription keeps no copy.
                    nonisolated(unsafe) let element = value
                    continuation.yield(element)
                },
                onCompleted: { continuation.finish() }
            )
            continuation.onTermination = { @Sendable _ in disposable.dispose() }
        }
    }

    /// An `Infallible` of the one value `block` returns, computed in a `Task` per subscription.
    public static func from(_ block: @escaping () async -> Element) -> Infallible<Element> {
        let block = UnsafeTransfer(block)
        return .create { observer in
            let observer = UnsafeTransfer(observer)
            let task = Task {
                let element = await block.value()
                observer.value(.next(element))
                observer.value(.completed)
            }
            return Disposables.create { task.cancel() }
        }
    }
}
