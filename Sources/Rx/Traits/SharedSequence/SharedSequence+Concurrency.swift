extension SharedSequenceConvertibleType {
    /// The elements as an `AsyncStream`: `for await x in driver.values`.
    public var values: AsyncStream<Element> {
        AsyncStream<Element> { continuation in
            let disposable = asObservable().subscribe(
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
}
