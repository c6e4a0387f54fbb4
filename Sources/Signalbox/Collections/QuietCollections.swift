import Base

/// Which collections went quiet after writes, from their index revisions at checks a second
/// apart (``PersistedIndexes/quietCheckInterval``), and when the heap is worth trimming
/// (`HeapTrim`): once every collection is quiet after a change since the last trim. With an
/// index directory the quiet ones are saved as well (``PersistedIndexes/saveQuiet(_:epoch:marking:)``);
/// without one the heap is still trimmed (an import's builds and merges free hundreds of MiB).
final class QuietCollections: Sendable {
    private let lastSeen = Locked<(revisions: [String: UInt64], changedSinceTrim: Bool)>(([:], false))

    /// The collections whose revision is the one of the previous check, and whether to trim now
    /// (every collection quiet, after a change since the last time this answered true).
    func check(_ revisions: [(name: String, revision: UInt64)]) -> (quiet: Set<String>, trimHeap: Bool) {
        lastSeen.withLock { seen -> (quiet: Set<String>, trimHeap: Bool) in
            var quiet = Set<String>()
            for (name, revision) in revisions {
                if seen.revisions[name] == revision {
                    quiet.insert(name)
                } else {
                    seen.changedSinceTrim = true
                }
                seen.revisions[name] = revision
            }
            guard seen.changedSinceTrim, quiet.count == revisions.count else { return (quiet, false) }
            seen.changedSinceTrim = false
            return (quiet, true)
        }
    }

    /// `check` of `collections`' current index revisions, written or held
    /// (``CollectionIndex/writeMark``): the changes an index holds are not applied for the check,
    /// so a writer keeps gathering them into large runs (a save applies them).
    func check(_ collections: [ServedCollection]) -> (quiet: Set<String>, trimHeap: Bool) {
        check(collections.map { ($0.name, $0.index.writeMark) })
    }
}
