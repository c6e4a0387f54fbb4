/// The events of a run of changes applied together (an import's batch), each made only when
/// something reads it: a live subscriber, or a client that resumes into the history.
///
/// An import publishes a million changes on the apply queue; with nobody listening, making each
/// one's event (its JSON, its frame object, its delivery to no one) cost about a tenth of the
/// import's CPU (issue 25). The feed keeps a run as it is and asks it for an event when one is
/// read, so what a client gets is the same event, whenever it is made: `make` reads only what
/// the run held when it was applied.
final class PendingEvents: Sendable {
    /// The changes' sequence numbers, in order.
    let sequences: [Int64]
    private let make: @Sendable (Int) -> ChangeEvent

    /// - Parameters:
    ///   - sequences: each change's sequence number, increasing.
    ///   - make: the event of the change at an offset into `sequences`; called at most once an
    ///     offset by the feed, on any thread.
    init(sequences: [Int64], make: @escaping @Sendable (Int) -> ChangeEvent) {
        self.sequences = sequences
        self.make = make
    }

    var count: Int { sequences.count }

    /// The event of the change at `offset`, made now.
    func event(at offset: Int) -> ChangeEvent {
        make(offset)
    }

    /// Every event, made now, in order.
    func events() -> [ChangeEvent] {
        sequences.indices.map(make)
    }
}
