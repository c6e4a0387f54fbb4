// `zip` keeps the trait: Singles zip to a Single (one element each gives one result),
// Maybes zip to a Maybe (an empty source completes the result empty).

extension PrimitiveSequenceType {
    /// One result from the elements of both sources, combined by `resultSelector`.
    public static func zip<E1, E2>(
        _ source1: PrimitiveSequence<Trait, E1>,
        _ source2: PrimitiveSequence<Trait, E2>,
        resultSelector: @escaping (E1, E2) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: Observable.zip(source1.asObservable(), source2.asObservable(), resultSelector: resultSelector))
    }

    /// One result from the elements of the three sources, combined by `resultSelector`.
    public static func zip<E1, E2, E3>(
        _ source1: PrimitiveSequence<Trait, E1>,
        _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>,
        resultSelector: @escaping (E1, E2, E3) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: Observable.zip(
            source1.asObservable(), source2.asObservable(), source3.asObservable(), resultSelector: resultSelector))
    }

    /// The elements of all `sources`, in order; no sources gives `[]` at once.
    public static func zip(_ sources: [PrimitiveSequence<Trait, Element>]) -> PrimitiveSequence<Trait, [Element]> {
        if sources.isEmpty { return PrimitiveSequence(raw: Observable.just([])) }
        return PrimitiveSequence(raw: Observable.zip(sources.map { $0.asObservable() }))
    }
}

extension PrimitiveSequence where Element == Any {
    /// The elements of both sources as a tuple.
    public static func zip<E1, E2>(
        _ source1: PrimitiveSequence<Trait, E1>,
        _ source2: PrimitiveSequence<Trait, E2>
    ) -> PrimitiveSequence<Trait, (E1, E2)> {
        PrimitiveSequence<Trait, (E1, E2)>.zip(source1, source2) { ($0, $1) }
    }

    /// The elements of the three sources as a tuple.
    public static func zip<E1, E2, E3>(
        _ source1: PrimitiveSequence<Trait, E1>,
        _ source2: PrimitiveSequence<Trait, E2>,
        _ source3: PrimitiveSequence<Trait, E3>
    ) -> PrimitiveSequence<Trait, (E1, E2, E3)> {
        PrimitiveSequence<Trait, (E1, E2, E3)>.zip(source1, source2, source3) { ($0, $1, $2) }
    }
}
