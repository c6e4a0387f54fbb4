import Dispatch
import Rx
import Search
import Synchronization

/// The shared lookup cache: one `Driver` per normalized query.
///
/// Each entry is `refresh.startWith(()).flatMapLatest { compute }` turned into
/// a Driver, so concurrent identical lookups share one computation
/// (single-flight), later requests get the latest result replayed at once,
/// and a failed computation serves the last good value instead of an error.
/// The cache keeps one subscription per live entry; evicting the entry (size
/// bound, TTL) disposes it, which drops the replayed value with it.
final class SearchLookups: Sendable {
    /// How a lookup was served, for metrics.
    enum Outcome: Sendable { case hit, miss, coalesced }

    private final class Entry: Sendable {
        struct State {
            var lastAccess: UInt64
            var latest: SearchPayload?
            /// The index version a request must see: raised when a change affects this query.
            var requiredVersion: UInt64
        }

        let query: SearchQuery
        /// Parsed once: every write tests every cached query with it.
        let matcher: QueryMatcher
        let key: String
        let refresh = PublishRelay<Void>()
        let state: Locked<State>
        let driver: Driver<SearchPayload>
        let keepAlive = SingleAssignmentDisposable()

        init(query: SearchQuery, key: String, now: UInt64, version: UInt64, compute: @escaping @Sendable (SearchQuery) -> SearchPayload) {
            self.query = query
            matcher = QueryMatcher(query)
            self.key = key
            let state = Locked(State(lastAccess: now, latest: nil, requiredVersion: version))
            self.state = state
            let lastGood = Observable<SearchPayload>.deferred {
                state.withLock { $0.latest }.map { .just($0) } ?? .empty()
            }
            driver = refresh.asObservable()
                .startWith(())
                .flatMapLatest { _ in
                    Observable<SearchPayload>.deferred { .just(compute(query)) }.catch { _ in lastGood }
                }
                .asDriver(onErrorDriveWith: lastGood.asDriver(onErrorDriveWith: .empty()))
        }

        func start() {
            keepAlive.setDisposable(driver.drive(onNext: { [state] payload in
                state.withLock { $0.latest = payload }
            }))
        }
    }

    private let index: SearchIndex
    private let entries = Locked<[String: Entry]>([:])
    private let settings: Locked<(maxEntries: Int, ttlNanoseconds: UInt64)>
    private let metrics: ServiceMetrics
    /// Dispatch sources are thread-safe; the type just is not marked Sendable.
    nonisolated(unsafe) private let sweeper: DispatchSourceTimer
    private let computations = Atomic<Int>(0)

    init(index: SearchIndex, maxEntries: Int, ttl: Double, metrics: ServiceMetrics) {
        self.index = index
        self.metrics = metrics
        settings = Locked((maxEntries, UInt64(ttl * 1e9)))
        sweeper = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "signalbox.lookups.sweep"))
        sweeper.schedule(deadline: .now() + 1, repeating: 1)
        sweeper.setEventHandler { [weak self] in self?.evictExpired() }
        sweeper.activate()
    }

    deinit {
        sweeper.cancel()
        for entry in entries.withLock({ Array($0.values) }) { entry.keepAlive.dispose() }
    }

    /// Applies reloaded limits.
    func update(maxEntries: Int, ttl: Double) {
        settings.withLock { $0 = (maxEntries, UInt64(ttl * 1e9)) }
    }

    /// The live Driver of `query`'s result: the current value at once, then each change to it.
    func driver(for query: SearchQuery) -> Driver<SearchPayload> {
        entry(for: query).entry.driver
    }

    /// The current result of `query` as a Single: replayed when cached, computed once for all
    /// concurrent callers otherwise, and never older than the last write that affected it.
    func first(_ query: SearchQuery) -> Single<SearchPayload> {
        Single.deferred { [self] in
            let (entry, outcome) = entry(for: query)
            metrics.lookup(outcome)
            let required = entry.state.withLock { $0.requiredVersion }
            return entry.driver.asObservable()
                .filter { $0.indexVersion >= required }
                .take(1)
                .asSingle()
        }
    }

    /// Marks and refreshes every cached query that `change` could alter.
    ///
    /// Called by the writer after the index has the change and before the
    /// write is answered, so the next search sees it.
    func apply(_ change: ChangeEvent) {
        let version = index.version
        let candidates = [change.document, change.previous].compactMap { $0.map(MatchCandidate.init) }
        guard !candidates.isEmpty else { return }
        // Matched outside the cache's lock, which every search takes. An entry made after the
        // snapshot computes on the changed index already; one evicted meanwhile refreshes for nobody.
        let cached = entries.withLock { Array($0.values) }
        for entry in cached where candidates.contains(where: entry.matcher.matches) {
            entry.state.withLock { $0.requiredVersion = max($0.requiredVersion, version) }
            entry.refresh.accept(())
        }
    }

    /// Searches run so far (each one is a cache miss or a refresh).
    var computationCount: Int { computations.load(ordering: .relaxed) }

    /// Number of cached queries.
    var count: Int { entries.withLock { $0.count } }

    private func entry(for query: SearchQuery) -> (entry: Entry, outcome: Outcome) {
        let now = DispatchTime.now().uptimeNanoseconds
        let key = query.normalizedKey
        let (entry, outcome, evicted): (Entry, Outcome, [Entry]) = entries.withLock { entries in
            if let existing = entries[key] {
                let hasValue = existing.state.withLock { state in
                    state.lastAccess = now
                    return state.latest != nil
                }
                return (existing, hasValue ? .hit : .coalesced, [])
            }
            let created = Entry(query: query, key: key, now: now, version: index.version) { [self] query in
                metrics.computation()
                computations.add(1, ordering: .relaxed)
                let version = index.version
                let started = DispatchTime.now().uptimeNanoseconds
                let result = index.search(query)
                let micros = Int((DispatchTime.now().uptimeNanoseconds &- started) / 1000)
                return SearchPayload(result: result, indexVersion: version, computeMicroseconds: micros)
            }
            entries[key] = created
            return (created, .miss, evictOverflow(&entries))
        }
        for old in evicted { old.keepAlive.dispose() }
        if outcome == .miss { entry.start() }
        return (entry, outcome)
    }

    /// Removes the least recently used tenth beyond the size bound; returns them to dispose outside the lock.
    private func evictOverflow(_ entries: inout [String: Entry]) -> [Entry] {
        let maxEntries = settings.withLock { $0.maxEntries }
        guard entries.count > maxEntries else { return [] }
        let excess = entries.count - maxEntries + max(1, maxEntries / 10)
        let oldest = entries.values
            .map { ($0, $0.state.withLock { $0.lastAccess }) }
            .sorted { $0.1 < $1.1 }
            .prefix(excess)
            .map(\.0)
        for entry in oldest { entries[entry.key] = nil }
        return Array(oldest)
    }

    private func evictExpired() {
        let now = DispatchTime.now().uptimeNanoseconds
        let ttl = settings.withLock { $0.ttlNanoseconds }
        let expired = entries.withLock { entries in
            let expired = entries.values.filter { entry in
                now &- entry.state.withLock { $0.lastAccess } > ttl
            }
            for entry in expired { entries[entry.key] = nil }
            return expired
        }
        for entry in expired { entry.keepAlive.dispose() }
    }
}
