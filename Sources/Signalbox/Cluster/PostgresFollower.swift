import Base
import Foundation
import Logging
import PostgresNIO
import Rx
import Search

/// Keeps a replica in step with the cluster's change log.
///
/// A commit's NOTIFY (one LISTEN connection per replica, none per client) carries the changes
/// it made when they fit (``ChangeNotification``): those are applied as they come. It reads
/// `WHERE seq > applied ORDER BY seq` whenever woken: by a NOTIFY that did not carry everything
/// (or came from a server not yet checked), by changes
/// that wait behind a missing one, and by a timer, the safety net for notifications
/// lost while the listener was disconnected. After every reconnect it reads again
/// before it waits. When the log no longer holds what it missed, it catches up from
/// the documents table instead. When another server answers than before (a standby promoted,
/// a restart), it first checks that the history it served is the store's (``HistoryCheck``).
final class PostgresFollower: Sendable {
    private let store: PostgresStore
    private let applier: ChangeApplier
    private let metrics: ReplicationMetrics
    private let pollInterval: Duration
    private let batch: Int
    /// The feed's history length (`events.history`): what a rewind gives the feed back.
    private let history: Int
    /// The base data's documents of these ids (read again from the data set: needed only when a
    /// failover lost a change to a base document, so not kept in memory).
    private let baseDocuments: @Sendable (Set<String>) throws -> [Document]
    private let logger: Logger
    private let wakeUps: AsyncStream<Void>
    private let waker: AsyncStream<Void>.Continuation
    private let tasks = Locked<[Task<Void, Never>]>([])
    /// The server that answered the last read (``PostgresStore/serverIdentity``).
    private let knownServer: Locked<String?>
    /// The server whose history this replica holds, as its reads have found (the one it started
    /// from, or one checked by ``HistoryCheck``): only its notifications' changes are applied as
    /// they come; any other's wake a read, which checks it first.
    private let confirmedServer: Locked<String?>

    init(
        store: PostgresStore, applier: ChangeApplier, metrics: ReplicationMetrics, pollInterval: Duration, batch: Int,
        history: Int, baseDocuments: @escaping @Sendable (Set<String>) throws -> [Document], logger: Logger,
        server: String? = nil
    ) {
        // The server the replica's snapshot came from: a read answered by another is checked first.
        knownServer = Locked(server)
        confirmedServer = Locked(server)
        self.store = store
        self.applier = applier
        self.metrics = metrics
        self.pollInterval = pollInterval
        self.batch = max(batch, 1)
        self.history = max(history, 1)
        self.baseDocuments = baseDocuments
        self.logger = logger
        (wakeUps, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Starts listening and reading.
    func start() {
        let listen = Task { [self] in await listenForever() }
        let pull = Task { [self] in await pullForever() }
        let tick = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                wake()
            }
        }
        tasks.withLock { $0 = [listen, pull, tick] }
        applier.onGap { [weak self] in self?.wake() }
    }

    /// Reads the log soon.
    func wake() { waker.yield() }

    func stop() {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        waker.finish()
    }

    /// Reads the log until this replica has applied everything it holds.
    func catchUpNow() async throws {
        var cursor = applier.applied.value
        while true {
            // Read once: the applier moves on meanwhile (this replica's own commits), and the
            // log is checked for contiguity against the position the query asked from. The
            // changes this replica holds already (its own writes, staged) are left out of the read.
            let held = applier.held(limit: Self.skippedAtMost)
            let from = max(cursor, held.through)
            let skipped = held.later.filter { $0 > from }
            let (head, changes, server) = try await store.changes(after: from, limit: batch, skipping: skipped)
            if try await answeredByAnotherServer(server) {
                cursor = applier.applied.value  // where the check left this replica (maybe further back)
                continue
            }
            confirmedServer.withLock { $0 = server }
            metrics.headSeen(head)
            // The first change the read should return: the log's next one that was not left out.
            var expected = from + 1
            for sequence in skipped where sequence == expected { expected += 1 }
            guard head >= expected else {
                applier.offer([])  // staged changes whose writers have not asked yet
                return
            }
            guard let first = changes.first, first.sequence == expected else {
                // Pruned from the log: the documents table has the latest of each.
                let missed = try await store.documents(changedAfter: from)
                logger.warning(
                    "the change log no longer holds the changes this replica missed; catching up from the documents",
                    metadata: ["applied": "\(from)", "head": "\(missed.head)", "documents": "\(missed.documents.count)"])
                applier.catchUp(
                    to: missed.head, documents: try missed.documents.map(ChangeApplier.Change.init),
                    recentChanges: try missed.recentChanges.map(ChangeApplier.Change.init))
                cursor = missed.head
                continue
            }
            applier.offer(try applier.unseen(changes).map(ChangeApplier.Change.init))
            cursor = changes.last?.sequence ?? cursor
            // Fewer than asked for: the read held every change through the head it saw (those left out aside).
            if changes.count < batch { return }
        }
    }

    /// At most this many held sequence numbers are left out of a read (the lowest): the rest are read again.
    static let skippedAtMost = 1_024

    /// Whether `server` differs from the one that answered before; if so, the history this
    /// replica served has been checked against it (and rewound where they parted) on return.
    private func answeredByAnotherServer(_ server: String) async throws -> Bool {
        let previous = knownServer.withLock { known in defer { known = server }; return known }
        guard let previous, previous != server else { return false }
        logger.warning(
            "another PostgreSQL server answers now; checking the history this replica served against it",
            metadata: ["before": "\(previous)", "now": "\(server)"])
        do {
            try await checkHistory()
            applier.confirm(server: server)
        } catch {
            knownServer.withLock { $0 = previous }  // checked on the next read
            throw error
        }
        return true
    }

    /// Compares the changes this replica applied last with the store's log, and rewinds where they part.
    func checkHistory() async throws {
        let ours = applier.recentlyApplied()
        guard let first = ours.first, let last = ours.last else { return }
        let stored = try await store.changes(from: first.sequence, through: last.sequence)
        let head = try await store.head()
        switch HistoryCheck.compare(applied: ours, stored: stored, storeHead: head) {
        case .consistent:
            logger.info("the store holds every change this replica served", metadata: ["applied": "\(last.sequence)", "head": "\(head)"])
        case .parted(let lastCommon) where !ours.contains(where: { $0.sequence > lastCommon && $0.kind == .schema }):
            try await rewind(to: lastCommon, lostThrough: last.sequence, ours: ours)
        case .parted(let lastCommon):
            // A collection created, replaced or deleted was lost: its documents' state cannot be put back one by one.
            await exitToStartAgain(
                "a failover lost a change to a collection's schema this replica had applied", applied: last.sequence, head: head,
                detail: ["last_common": "\(lastCommon)"])
        case .unknown:
            // Neither side keeps the changes from where they parted: only a fresh start is right.
            await exitToStartAgain(
                "the store's history and the one this replica served part before anything either keeps", applied: last.sequence,
                head: head, detail: ["kept_from": "\(first.sequence)"])
        }
    }

    /// Ends the process (exit 75, EX_TEMPFAIL) so that its supervisor starts it again, from the store.
    private func exitToStartAgain(_ reason: String, applied: Int64, head: Int64, detail: Logger.Metadata) async -> Never {
        logger.critical(
            "\(reason); exiting so that this replica starts again from the store (exit 75)",
            metadata: detail.merging(["applied": "\(applied)", "head": "\(head)"]) { first, _ in first })
        await LogSetup.flush()
        exit(75)
    }

    /// Puts this replica back at `lastCommon`, the store's state of every document that the lost
    /// changes touched, and lets the follower apply the store's history from there.
    private func rewind(to lastCommon: Int64, lostThrough last: Int64, ours: [HistoryCheck.Applied]) async throws {
        let touched = Set(ours.filter { $0.sequence > lastCommon }.map { DocumentKey(collection: $0.collection, id: $0.id) })
        var corrections = try await store.documents(keys: Array(touched)).map(ChangeApplier.Change.init)
        let unstored = touched.subtracting(corrections.map { DocumentKey(collection: $0.collection, id: $0.id) })
        let unstoredCities = Set(unstored.filter { $0.collection == citiesCollection }.map(\.id))
        let base =
            unstoredCities.isEmpty
            ? [:] : Dictionary(try baseDocuments(unstoredCities).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for key in unstored {
            // Never stored: a city back to its base data version (or gone), another collection's document gone.
            let document = key.collection == citiesCollection ? base[key.id] : nil
            corrections.append(ChangeApplier.Change(sequence: lastCommon, collection: key.collection, id: key.id, document: document, body: nil))
        }
        let kept = try await store.changes(from: max(1, lastCommon - Int64(history) + 1), through: lastCommon)
        await applier.rewind(to: lastCommon, corrections: corrections, history: try kept.map(ChangeApplier.Change.init))
        metrics.rewound()
        logger.error(
            "the store lacks changes this replica had applied (a failover lost them); went back to the last common change and sent its event clients a reset",
            metadata: ["last_common": "\(lastCommon)", "lost": "\(lastCommon + 1)...\(last)", "documents": "\(touched.count)"])
    }

    private func pullForever() async {
        var failing = false
        for await _ in wakeUps {
            do {
                try await catchUpNow()
                if failing {
                    logger.info("change log readable again", metadata: ["applied": "\(applier.applied.value)"])
                    failing = false
                }
            } catch {
                if !failing {
                    logger.error("cannot read the change log; serving what this replica has", metadata: ["error": "\(error)"])
                    failing = true
                }
            }
            metrics.refresh()
        }
    }

    /// Offers the changes a commit's notification carries (``ChangeNotification``), so that they
    /// are applied without a read of the log; returns false when a read is needed: nothing or not
    /// every change carried, a body that does not decode, or the notification came from another
    /// server than the one whose history this replica holds (the read then checks it). A change
    /// missing before the carried ones shows as a gap, which wakes a read too (``ChangeApplier/onGap(_:)``).
    func offer(_ carried: ChangeNotification, from server: String) -> Bool {
        guard !carried.changes.isEmpty, confirmedServer.withLock({ $0 == server }) else { return false }
        do {
            // A commit too large for one payload carries its first changes: the read then leaves them out.
            applier.offer(try applier.unseen(carried.changes).map(ChangeApplier.Change.init))
            return carried.isComplete
        } catch {
            return false
        }
    }

    /// One LISTEN connection, reconnected with back-off; an outage is logged once, not per attempt.
    private func listenForever() async {
        var delay = Duration.milliseconds(250)
        var connectedBefore = false
        var outageReported = false
        while !Task.isCancelled {
            var host: PostgresURL.Host?
            do {
                let (configuration, primary) = try await store.listenerConfiguration()
                host = primary
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                // Whose notifications these are: their changes are applied only if it is the server the reads confirmed.
                var server = ""
                for try await found in try await connection.query("SELECT \(unescaped: PostgresStore.serverIdentity)", logger: logger)
                    .decode(String.self) { server = found }
                if connectedBefore { metrics.reconnected() }
                if outageReported { logger.info("listening for changes again", metadata: ["store": "\(store.url)", "host": "\(primary)"]) }
                (connectedBefore, outageReported, delay) = (true, false, .milliseconds(250))
                try await connection.listen(on: PostgresStore.channel) { notifications in
                    wake()  // what was committed while this listener was away
                    for try await notification in notifications {
                        if let carried = ChangeNotification(payload: notification.payload) {
                            metrics.headSeen(carried.head)
                            // This replica's own commit (staged already) or one it has read: nothing to read.
                            if carried.head <= applier.heldThrough {
                                applier.offer([])
                                continue
                            }
                            // This replica's own commit, heard before its answer, which stages it: nothing to
                            // decode. Should the answer be lost (a timeout), the next read applies it.
                            if carried.origin == store.origin { continue }
                            if offer(carried, from: server) { continue }
                        }
                        wake()
                    }
                }
                try? await connection.close()
            } catch {
                if let host { store.primary.failed(host: host, with: error) }
                if !outageReported {
                    logger.warning("the change listener lost PostgreSQL; retrying", metadata: ["error": "\(error)"])
                    outageReported = true
                }
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }
}
