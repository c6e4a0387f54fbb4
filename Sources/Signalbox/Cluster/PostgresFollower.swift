import Base
import Foundation
import Logging
import PostgresNIO
import Rx
import Search

/// Keeps a replica in step with the cluster's change log.
///
/// It reads `WHERE seq > applied ORDER BY seq` whenever woken: by a NOTIFY from any
/// replica's commit (one LISTEN connection per replica, none per client), by changes
/// that wait behind a missing one, and by a timer, the safety net for notifications
/// lost while the listener was disconnected. After every reconnect it reads again
/// before it waits. When the log no longer holds what it missed, it catches up from
/// the documents table instead.
final class PostgresFollower: Sendable {
    private let store: PostgresStore
    private let applier: ChangeApplier
    private let metrics: ReplicationMetrics
    private let pollInterval: Duration
    private let batch: Int
    private let logger: Logger
    private let wakeUps: AsyncStream<Void>
    private let waker: AsyncStream<Void>.Continuation
    private let tasks = Locked<[Task<Void, Never>]>([])

    init(store: PostgresStore, applier: ChangeApplier, metrics: ReplicationMetrics, pollInterval: Duration, batch: Int, logger: Logger) {
        self.store = store
        self.applier = applier
        self.metrics = metrics
        self.pollInterval = pollInterval
        self.batch = max(batch, 1)
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
            // log is checked for contiguity against the position the query asked from.
            let from = max(cursor, applier.applied.value)
            let (head, changes) = try await store.changes(after: from, limit: batch)
            metrics.headSeen(head)
            guard head > from else { return }
            guard let first = changes.first, first.sequence == from + 1 else {
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
            applier.offer(try changes.map(ChangeApplier.Change.init))
            cursor = changes.last?.sequence ?? cursor
            if changes.count < batch && cursor >= head { return }
        }
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

    /// One LISTEN connection, reconnected with back-off; an outage is logged once, not per attempt.
    private func listenForever() async {
        var delay = Duration.milliseconds(250)
        var connectedBefore = false
        var outageReported = false
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try store.url.connectionConfiguration(), id: 1, logger: logger)
                if connectedBefore { metrics.reconnected() }
                if outageReported { logger.info("listening for changes again", metadata: ["store": "\(store.url)"]) }
                (connectedBefore, outageReported, delay) = (true, false, .milliseconds(250))
                try await connection.listen(on: PostgresStore.channel) { notifications in
                    wake()  // what was committed while this listener was away
                    for try await notification in notifications {
                        if let head = Int64(notification.payload) { metrics.headSeen(head) }
                        wake()
                    }
                }
                try? await connection.close()
            } catch {
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
