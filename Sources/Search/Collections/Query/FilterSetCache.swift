import Base

/// The document sets a segment computed for its most recent filters, so that keystroke queries
/// that keep their filter while the text changes (the usual case) evaluate it once per segment,
/// not once per keystroke. A segment never changes, so an entry is never stale; deleted
/// documents are masked by the caller afterwards. At most `capacity` entries (the oldest goes
/// first): a set costs a bit per document of the segment.
final class FilterSetCache: Sendable {
    /// Filters kept per segment.
    static let capacity = 16

    private struct Entries {
        var sets: [FilterExpression: DocumentSet] = [:]
        /// Keys, oldest first.
        var order: [FilterExpression] = []
    }

    private let entries = Locked(Entries())

    /// The set of `filter`, from the cache or made by `make` (outside the lock) and kept.
    func documents(for filter: FilterExpression, make: () -> DocumentSet) -> DocumentSet {
        if let set = entries.withLock({ $0.sets[filter] }) { return set }
        let set = make()
        entries.withLock { entries in
            guard entries.sets[filter] == nil else { return }
            if entries.order.count >= Self.capacity { entries.sets[entries.order.removeFirst()] = nil }
            entries.sets[filter] = set
            entries.order.append(filter)
        }
        return set
    }

    /// Whether the set of `filter` is kept.
    func contains(_ filter: FilterExpression) -> Bool {
        entries.withLock { $0.sets[filter] != nil }
    }

    var count: Int { entries.withLock { $0.sets.count } }
}
