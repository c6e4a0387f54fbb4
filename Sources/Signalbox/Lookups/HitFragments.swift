import Rx
import Search

/// The JSON of a hit but its highlight, kept per document: the highlight depends on the query,
/// the rest (attributes, id, name, rank) only on the document. Keystroke queries keep finding the
/// same large cities, so an uncached search mostly reuses their bytes instead of encoding them
/// (coordinates, sorted attributes, escaped strings) again.
///
/// A fragment is used only for the index version it was made at, so a write (which raises the
/// version) retires every one. At `capacity` fragments, each new one replaces an arbitrary one
/// (the first in the dictionary's storage): a working set larger than the cache keeps most of
/// what it holds instead of starting over.
final class HitFragments: Sendable {
    struct Fragment: Sendable {
        /// `{"attributes":{…},`
        let head: [UInt8]
        /// `"id":…,"name":…,"rank":…}`
        let tail: [UInt8]
    }

    private struct State {
        var version: UInt64 = 0
        var fragments: [String: Fragment] = [:]
    }

    private let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The fragment of `document` as of `version`, made by `make` when missing.
    func fragment(of document: Document, version: UInt64, make: () -> Fragment) -> Fragment {
        guard capacity > 0 else { return make() }
        if let found = state.withLock({ $0.version == version ? $0.fragments[document.id] : nil }) {
            return found
        }
        let made = make()
        state.withLock { state in
            guard version >= state.version else { return }  // made from an older index: not kept
            if version > state.version {
                state.version = version
                state.fragments.removeAll(keepingCapacity: true)
            } else if state.fragments.count >= capacity, state.fragments[document.id] == nil {
                state.fragments.remove(at: state.fragments.startIndex)
            }
            state.fragments[document.id] = made
        }
        return made
    }
}
