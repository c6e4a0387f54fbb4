extension ObservableType {
    /// A `Single` of this sequence's one element, emitted when the sequence completes.
    ///
    /// Completion without an element fails with `RxError.noElements`; a second element
    /// fails at once with `RxError.moreThanOneElement` and disposes the source.
    public func asSingle() -> Single<Element> {
        Single(raw: atMostOne(whenEmpty: { $0.on(.error(RxError.noElements)) }))
    }

    /// A `Maybe` of this sequence's element: none completes empty, one succeeds when the
    /// sequence completes, a second fails at once with `RxError.moreThanOneElement`.
    public func asMaybe() -> Maybe<Element> {
        Maybe(raw: atMostOne(whenEmpty: { $0.on(.completed) }))
    }

    /// A `Completable` that ignores the elements and keeps the completion or the error.
    public func asCompletable() -> Completable {
        Completable(raw: ignoreElements())
    }

    /// A `Single` of the first element (disposing the source after it), or `nil` when the
    /// sequence completes empty.
    public func first() -> Single<Element?> {
        Single(raw: asObservable().take(1).map { Optional($0) }.ifEmpty(default: nil))
    }

    /// Holds back the one element until completion; `whenEmpty` ends an empty sequence.
    private func atMostOne(whenEmpty: @escaping (AnyObserver<Element>) -> Void) -> Observable<Element> {
        let source = asObservable()
        return Observable.create { observer in
            var element: Element?  // events of one subscription never overlap
            var isStopped = false
            return source.subscribe { event in
                if isStopped { return }
                switch event {
                case .next(let next):
                    if element == nil {
                        element = next
                    } else {
                        isStopped = true
                        observer.on(.error(RxError.moreThanOneElement))
                    }
                case .error:
                    isStopped = true
                    observer.on(event)
                case .completed:
                    isStopped = true
                    if let element {
                        observer.on(.next(element))
                        observer.on(.completed)
                    } else {
                        whenEmpty(observer)
                    }
                }
            }
        }
    }
}
