extension ObservableType {
    /// Skips elements and completes (or errors) when the observable sequence completes (or errors).
    public func ignoreElements() -> Observable<Never> {
        compactMap { _ in nil }
    }
}
