extension ObservableType {
    /// Enumerates the elements of an observable sequence: each element is paired with its index.
    public func enumerated() -> Observable<(index: Int, element: Element)> {
        scan(into: (index: -1, element: nil as Element?)) { state, element in
            state = (state.index + 1, element)
        }
        .map { state in (index: state.index, element: state.element!) }
    }
}
