extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// After this `Completable` completes, the outcome of `second`; an error skips it.
    public func andThen<Result>(_ second: Single<Result>) -> Single<Result> {
        Single(raw: continued(with: second.asObservable()))
    }

    /// After this `Completable` completes, the outcome of `second`; an error skips it.
    public func andThen<Result>(_ second: Maybe<Result>) -> Maybe<Result> {
        Maybe(raw: continued(with: second.asObservable()))
    }

    /// After this `Completable` completes, `second`; an error skips it.
    public func andThen(_ second: Completable) -> Completable {
        Completable(raw: continued(with: second.asObservable()))
    }

    /// After this `Completable` completes, the elements of `second`; an error skips it.
    public func andThen<Result>(_ second: Observable<Result>) -> Observable<Result> {
        continued(with: second)
    }

    /// `second` is subscribed only once `self` has completed: a `Completable` is always empty.
    private func continued<Result>(with second: Observable<Result>) -> Observable<Result> {
        primitiveSequence.source
            .map { (never: Never) -> Result in }
            .ifEmpty(switchTo: second)
    }
}
