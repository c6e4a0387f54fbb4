import Base
import Dispatch
import Rx
import Search
import Synchronization

/// The shared lookup cache: one entry per normalized query.
///
/// A request that finds no fresh result computes it on its own thread and
/// answers with it at once; identical requests that arrive meanwhile wait for
/// that one computation (single-flight), and later ones get the result
/// replayed. A live query (`driver(for:)`) gives its entry a `Driver`,
/// `refresh.triggers().flatMapLatest { compute }`, which writes that affect
/// the query refresh; entries without one are only marked stale by writes and
/// recomputed by their next request. Evicting an entry (size bound, TTL)
/// disposes what it holds.
final class SearchLookups: Sendable {
    private final class Entry: Sendable {
        struct State {
            var lastAccess: UInt64
            var latest: SearchPayload?
            /// The index version a request must see: raised when a change affects this query.
            var requiredVersion: UInt64
            /// A request is computing the result; identical requests wait for it here.
            var computing = false
            var waiters: [@Sendable (SearchPayload) -> Void] = []
            /// The live Driver, made for the first live subscriber.
            var live: LiveQuery?

            /// The latest result, if no change since has affected it.
            var fresh: SearchPayload? {
                guard let latest, latest.indexVersion >= requiredVersion else { return nil }
                return latest
            }
        }

        let query: PreparedQuery
        /// Every write tests every cached query with it.
        let matcher: QueryMatcher
        let key: String
        let state: Locked<State>

        init(query: PreparedQuery, now: UInt64, version: UInt64) {
            self.query = query
            matcher = QueryMatcher(query)
            key = query.key
            state = Locked(State(lastAccess: now, latest: nil, requiredVersion: version))
        }

        /// Out of the cache: the live Driver's keep-alive ends (its clients keep their own subscriptions).
        func retire() {
            let live = state.withLock { state in
                defer { state.live = nil }  // the live chain refers to this entry
                return state.live
            }
            live?.keepAlive.dispose()
        }
    }

    /// The Rx side of a live query: refreshed by writes, replaying the latest result.
    private final class LiveQuery: Sendable {
        let refresh = PublishRelay<Void>()
        let driver: Driver<SearchPayload>
        let keepAlive = SingleAssignmentDisposable()

        init(state: Locked<Entry.State>, compute: @escaping @Sendable () -> SearchPayload) {
            let lastGood = Observable<SearchPayload>.deferred {
                state.withLock { $0.latest }.map { .just($0) } ?? .empty()
            }
            driver = refresh.triggers()
                .flatMapLatest { _ in
                    // The first value may be one a request computed already.
                    Observable<SearchPayload>.deferred { .just(state.withLock { $0.fresh } ?? compute()) }
                        .catch { _ in lastGood }
                }
                .asDriver(onErrorDriveWith: lastGood.asDriver(onErrorDriveWith: .empty()))
        }

        func start(_ state: Locked<Entry.State>) {
            keepAlive.setDisposable(driver.drive(onNext: { payload in
                state.withLock { state in
                    if (state.latest?.indexVersion ?? 0) <= payload.indexVersion { state.latest = payload }
                }
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
        for entry in entries.withLock({ Array($0.values) }) { entry.retire() }
    }

    /// Applies reloaded limits.
    func update(maxEntries: Int, ttl: Double) {
        settings.withLock { $0 = (maxEntries, UInt64(ttl * 1e9)) }
    }

    /// The live Driver of `query`'s result: the current value at once, then each change to it.
    func driver(for query: PreparedQuery) -> Driver<SearchPayload> {
        let entry = entry(for: query)
        let (live, created) = entry.state.withLock { state -> (LiveQuery, Bool) in
            if let live = state.live { return (live, false) }
            let live = LiveQuery(state: entry.state) { [self] in compute(query) }
            state.live = live
            return (live, true)
        }
        if created { live.start(entry.state) }  // outside the lock: starting computes
        return live.driver
    }

    func driver(for query: SearchQuery) -> Driver<SearchPayload> {
        driver(for: PreparedQuery(query))
    }

    /// The current result of `query` as a Single: replayed when cached, computed once for all
    /// concurrent callers otherwise, and never older than the last write that affected it.
    func first(_ query: SearchQuery) -> Single<SearchPayload> {
        first(PreparedQuery(query))
    }

    /// The same for a query normalized once for its key, its matcher and its search.
    func first(_ query: PreparedQuery) -> Single<SearchPayload> {
        Single.create { [self] observer in
            serve(entry(for: query), observer)
            return Disposables.create()
        }
    }

    private enum Step { case hit(SearchPayload), wait, compute }

    private func serve(_ entry: Entry, _ observer: @escaping @Sendable (SingleEvent<SearchPayload>) -> Void) {
        let step = entry.state.withLock { state -> Step in
            if let fresh = state.fresh { return .hit(fresh) }
            if state.computing {
                state.waiters.append { observer(.success($0)) }
                return .wait
            }
            state.computing = true
            return .compute
        }
        switch step {
        case .hit(let payload):
            metrics.lookup(.hit)
            observer(.success(payload))
        case .wait:
            metrics.lookup(.coalesced)
        case .compute:
            metrics.lookup(.miss)
            observer(.success(computeForWaiters(entry)))
        }
    }

    /// Computes on the calling thread until the result is fresh (a write may land meanwhile),
    /// then hands it to the requests that waited.
    private func computeForWaiters(_ entry: Entry) -> SearchPayload {
        while true {
            let payload = compute(entry.query)
            let waiters = entry.state.withLock { state -> [@Sendable (SearchPayload) -> Void]? in
                if (state.latest?.indexVersion ?? 0) <= payload.indexVersion { state.latest = payload }
                guard payload.indexVersion >= state.requiredVersion else { return nil }
                state.computing = false
                defer { state.waiters = [] }
                return state.waiters
            }
            guard let waiters else { continue }
            for waiter in waiters { waiter(payload) }
            return payload
        }
    }

    private func compute(_ query: PreparedQuery) -> SearchPayload {
        metrics.computation()
        computations.add(1, ordering: .relaxed)
        let version = index.version
        let started = DispatchTime.now().uptimeNanoseconds
        let result = index.search(query)
        let micros = Int((DispatchTime.now().uptimeNanoseconds &- started) / 1000)
        return SearchPayload(result: result, indexVersion: version, computeMicroseconds: micros)
    }

    /// Marks and refreshes every cached query that `change` could alter.
    ///
    /// Called by the writer after the index has the change and before the
    /// write is answered, so the next search sees it.
    func apply(_ change: ChangeEvent) {
        apply([(document: change.document, previous: change.previous)])
    }

    /// Marks and refreshes every cached query that any of `changes` (each document after and
    /// before a change, in order) could alter: the cache is read once for the run, and with
    /// nothing cached no document is tokenized (about 6,000 instructions a change).
    func apply(_ changes: [(document: Document?, previous: Document?)]) {
        let version = index.version
        // Matched outside the cache's lock, which every search takes. An entry made after the
        // snapshot computes on the changed index already; one evicted meanwhile refreshes for nobody.
        let cached = entries.withLock { $0.isEmpty ? [] : Array($0.values) }
        guard !cached.isEmpty else { return }
        var affected = Set<ObjectIdentifier>()
        for change in changes {
            let candidates = [change.document, change.previous].compactMap { $0.map(MatchCandidate.init) }
            guard !candidates.isEmpty else { continue }
            for entry in cached where !affected.contains(ObjectIdentifier(entry)) && candidates.contains(where: entry.matcher.matches) {
                affected.insert(ObjectIdentifier(entry))
            }
        }
        for entry in cached where affected.contains(ObjectIdentifier(entry)) {
            let live = entry.state.withLock { state in
                state.requiredVersion = max(state.requiredVersion, version)
                return state.live
            }
            // A live query recomputes now; any other cached one when it is next asked for.
            live?.refresh.accept(())
        }
    }

    /// Searches run so far (each one is a cache miss or a refresh).
    var computationCount: Int { computations.load(ordering: .relaxed) }

    /// Number of cached queries.
    var count: Int { entries.withLock { $0.count } }

    private func entry(for query: PreparedQuery) -> Entry {
        let now = DispatchTime.now().uptimeNanoseconds
        let (entry, evicted): (Entry, [Entry]) = entries.withLock { entries in
            if let existing = entries[query.key] {
                existing.state.withLock { $0.lastAccess = now }
                return (existing, [])
            }
            let created = Entry(query: query, now: now, version: index.version)
            entries[query.key] = created
            return (created, evictOverflow(&entries))
        }
        for old in evicted { old.retire() }
        return entry
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
        for entry in expired { entry.retire() }
    }
}
