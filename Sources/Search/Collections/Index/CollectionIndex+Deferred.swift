/// Writes applied in batches: a caller that reads no outcomes (the cities' applier: their events
/// come from the search index) hands its runs to ``CollectionIndex/applyDeferred(_:through:)``,
/// which holds them until a read of the index or until `maxDeferredChanges` are held, then
/// applies them as one run. A write of a few changes then costs its share of one segment build
/// instead of a build of the recent segment (up to `recentSegmentDocuments` documents) each time,
/// and the previous versions of replaced documents are not decoded.
///
/// Reads see every change handed over before they began: each read of the index (a search, a
/// document, `contains`, `count`, `version`, `sequence`, a save, every document) first applies
/// the held changes (``CollectionIndex/catchUp(reportingPrevious:)``), waiting for the writer lock
/// only then. With nothing held a read takes one more short lock, never the writer's.
extension CollectionIndex {
    /// The changes held, in order, and the store's sequence number of the latest (nil if none is stored).
    struct DeferredChanges {
        var changes: [CollectionChange] = []
        var sequence: Int64?
        /// How many changes were ever handed over (never lowered): see ``CollectionIndex/writeMark``.
        var handedOver: UInt64 = 0

        mutating func removeFirst(_ count: Int) {
            changes.removeFirst(count)
            if changes.isEmpty { sequence = nil }
        }
    }

    /// Takes `changes` to apply later, in order after every change taken before and before any
    /// read of the index sees the index: at the latest when the next read begins, or here once
    /// `maxDeferredChanges` are held. `sequence`: as in ``apply(_:through:prepared:)``. Callers
    /// that need the outcomes (live queries to refresh, events) use ``apply(_:through:prepared:)``
    /// or ``catchUp(reportingPrevious:)``.
    public func applyDeferred(_ changes: [CollectionChange], through sequence: Int64? = nil) {
        guard !changes.isEmpty else {
            if sequence != nil { apply([], through: sequence) }
            return
        }
        let held = deferred.withLock { held -> Int in
            held.changes += changes
            held.handedOver &+= UInt64(changes.count)
            if let sequence { held.sequence = max(held.sequence ?? sequence, sequence) }
            return held.changes.count
        }
        if held >= configuration.maxDeferredChanges { catchUp(reportingPrevious: false) }
    }

    /// Applies the changes held by ``applyDeferred(_:through:)`` as one run, if any; returns their
    /// outcomes with `reportingPrevious` (each replaced version decoded), else none.
    @discardableResult
    public func catchUp(reportingPrevious: Bool) -> [CollectionChangeOutcome] {
        // Only the writer removes held changes (once published): none held now means every change
        // handed over before is in the published snapshot.
        guard deferred.withLock({ !$0.changes.isEmpty }) else { return [] }
        return apply([], reportingHeld: reportingPrevious)
    }

    /// What tells a writer's activity without applying what is held: the published snapshot's
    /// ``revision`` plus the count of changes ever handed to ``applyDeferred(_:through:)``. It
    /// moves with every write, held or applied, and with every merge. The one-second quiet check of
    /// the saved indexes reads this: reading ``revision`` applied the held changes every second,
    /// a run of a second's writes, where the writer otherwise gathers up to `maxDeferredChanges`
    /// (under valgrind's slowdown, a run every 15-50 writes: most of the index's cost a write).
    public var writeMark: UInt64 {
        // Both only grow, so their sum moves exactly when either does. The held count is read
        // first: a change applied between the two reads has raised the revision as well.
        let handedOver = deferred.withLock { $0.handedOver }
        return published.revision &+ handedOver
    }

    /// Changes held at this index's writes (tests).
    var heldChanges: Int { deferred.withLock { $0.changes.count } }
}
