// `zip` keeps the trait: Singles zip to a Single (one element each gives one result),
// Maybes zip to a Maybe (an empty source completes the result empty).

extension PrimitiveSequenceType {
    /// The elements of all `sources`, in order; no sources gives `[]` at once.
    public static func zip(_ sources: [PrimitiveSequence<Trait, Element>]) -> PrimitiveSequence<Trait, [Element]> {
        if sources.isEmpty { return PrimitiveSequence(raw: Observable.just([])) }
        return PrimitiveSequence(raw: Observable.zip(sources.map { $0.asObservable() }))
    }
}
