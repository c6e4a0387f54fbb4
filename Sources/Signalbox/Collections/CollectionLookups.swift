import Base
import Dispatch
import Rx
import Search

/// The live queries of one collection: one shared `Driver` per distinct query, which a write
/// refreshes when it can alter the query's result (its old or new version matches), and which
/// sends a new value only when the answer a client sees changed (hits, total, facets, stats).
///
/// A plain search (`first`) computes at once: a collection search takes microseconds, and
/// its result depends on the request's own filter, facets and page.
final class CollectionLookups: Sendable {
    private final class Entry: Sendable {
        let query: CollectionQuery
        /// Compiled against the schema of the index it was made for; a new index recompiles it.
        let matcher: Locked<CollectionQueryMatcher>
        let refresh = PublishRelay<Void>()
        let driver: Driver<CollectionPayload>

        init(
            query: CollectionQuery, schema: CollectionSchema, rules: QueryRules, compute: @escaping @Sendable () -> CollectionPayload,
            onIdle: @escaping @Sendable () -> Void
        ) {
            self.query = query
            matcher = Locked(CollectionQueryMatcher(query, schema: schema, rules: rules))
            driver = refresh.triggers()
                .map { _ in compute() }
                .distinctUntilChanged()
                .do(onDispose: onIdle)
                .asDriver(onErrorDriveWith: .empty())
        }
    }

    /// The collection's serving index (another after a schema change) and its synonyms and stop
    /// words, read together.
    private let current: @Sendable () -> (index: CollectionIndex, rules: QueryRules)
    private let entries = Locked<[CollectionQuery: Entry]>([:])
    private let maxEntries: Int

    init(current: @escaping @Sendable () -> (index: CollectionIndex, rules: QueryRules), maxEntries: Int) {
        self.current = current
        self.maxEntries = maxEntries
    }

    /// The current result of `query`.
    func search(_ query: CollectionQuery) -> CollectionPayload {
        let (index, rules) = current()
        let version = index.version
        let started = DispatchTime.now().uptimeNanoseconds
        let result = index.search(query, rules: rules)
        let micros = Int((DispatchTime.now().uptimeNanoseconds &- started) / 1000)
        return CollectionPayload(query: query.text, result: result, indexVersion: version, computeMicroseconds: micros)
    }

    func first(_ query: CollectionQuery) -> Single<CollectionPayload> {
        Single.deferred { [self] in .just(search(query)) }
    }

    /// The live Driver of `query`'s result: the current value at once, then each change to it.
    /// Fails with ``TooManyLiveQueries`` when the collection has as many distinct ones as it may.
    func driver(for query: CollectionQuery) throws -> Driver<CollectionPayload> {
        try entries.withLock { entries in
            if let entry = entries[query] { return entry.driver }
            guard entries.count < maxEntries else { throw TooManyLiveQueries(limit: maxEntries) }
            let made = Locked<Entry?>(nil)
            let (index, rules) = current()
            let entry = Entry(query: query, schema: index.schema, rules: rules, compute: { [self] in search(query) }) { [entries = self.entries] in
                // The last client left: forget the query (unless a newer entry took its place).
                let gone = made.withLock { $0 }
                entries.withLock { if let gone, $0[query] === gone { $0[query] = nil } }
            }
            made.withLock { $0 = entry }
            entries[query] = entry
            return entry.driver
        }
    }

    /// Number of live queries.
    var count: Int { entries.withLock { $0.count } }

    /// Refreshes every live query that `outcomes` (a batch just applied) can alter.
    func refresh(after outcomes: [CollectionChangeOutcome], schema: CollectionSchema) {
        let live = entries.withLock { Array($0.values) }
        guard !live.isEmpty else { return }
        var candidates: [CollectionMatchCandidate] = []
        for outcome in outcomes {
            if case .upsert(let document) = outcome.change { candidates.append(CollectionMatchCandidate(document, schema: schema)) }
            if let previous = outcome.previous { candidates.append(CollectionMatchCandidate(previous, schema: schema)) }
        }
        for entry in live {
            let matcher = entry.matcher.withLock { $0 }
            if candidates.contains(where: matcher.matches) { entry.refresh.accept(()) }
        }
    }

    /// The collection's index was swapped for one under `schema`: every live query is
    /// compiled again and refreshed.
    func indexReplaced(schema: CollectionSchema) {
        recompile(schema: schema, rules: current().rules)
    }

    /// The collection's synonyms or stop words changed: every live query is compiled again and
    /// refreshed (its clients get a new result only if it changed).
    func rulesReplaced(_ rules: QueryRules, schema: CollectionSchema) {
        recompile(schema: schema, rules: rules)
    }

    private func recompile(schema: CollectionSchema, rules: QueryRules) {
        for entry in entries.withLock({ Array($0.values) }) {
            entry.matcher.withLock { $0 = CollectionQueryMatcher(entry.query, schema: schema, rules: rules) }
            entry.refresh.accept(())
        }
    }
}

/// A collection has as many live queries as `collections.maxLiveQueries` allows (429).
struct TooManyLiveQueries: Error, Sendable {
    let limit: Int
}
