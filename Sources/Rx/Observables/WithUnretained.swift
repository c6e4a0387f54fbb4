extension ObservableType {
    /// Combines `obj`, held weakly, with each element.
    ///
    /// Once `obj` is released, the sequence completes at the next element (as in RxSwift).
    public func withUnretained<Object: AnyObject, Out>(_ obj: Object, resultSelector: @escaping (Object, Element) -> Out) -> Observable<Out> {
        map { [weak obj] element -> Out in
            guard let obj else { throw UnretainedError.failedRetaining }
            return resultSelector(obj, element)
        }
        .catch { error -> Observable<Out> in
            guard let unretained = error as? UnretainedError, unretained == .failedRetaining else {
                return .error(error)
            }
            return .empty()
        }
    }

    /// `(obj, element)` for each element, `obj` held weakly; completes at the first element after `obj` is gone.
    public func withUnretained<Object: AnyObject>(_ obj: Object) -> Observable<(Object, Element)> {
        withUnretained(obj) { ($0, $1) }
    }
}

private enum UnretainedError: Swift.Error {
    case failedRetaining
}
