import Base
import Foundation
import HTTPTesting
import Logging
import Testing
@testable import Signalbox

/// Issue 27 part 4: a group commits asynchronously and is durable only after its flush statement,
/// and the replica's next group commits while that flush waits (pipelined, on another lane); a
/// follower's read of the log returns rows only after a flush of its own. The flush is held here
/// by a synchronous standby that never comes (`synchronous_standby_names`), on a server of the
/// test's own: a server-wide setting would hold every other test's commits.
@Suite(.enabled("PostgreSQL is not installed") { await ScratchPostgres.isAvailable() }, .timeLimit(.minutes(TestTime.scaled(minutes: 3))))
struct PostgresPipelinedCommitTests {
    static let logger: Logger = {
        var logger = Logger(label: "test.pipelinedcommit")
        logger.logLevel = .critical
        return logger
    }()

    static let script = ScratchPostgres.root.appendingPathComponent("scripts/pg-scratch").path

    /// Polls PostgreSQL's state, which has no wait to await, every 50 ms for at most a minute.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<1_200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    static func value(_ url: String, _ sql: String) async -> String {
        await ScratchPostgres.psql(url, sql).1.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theNextGroupCommitsWhileAFlushWaitsAndNeitherWritersNorFollowerGetTheRowsBeforeIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-pipelined-\(UUID().uuidString)").path
        let started = await ChildProcess.run("/bin/bash", [Self.script, "start", directory], mergingErrors: false)
        defer { _ = system("bash '\(Self.script)' stop '\(directory)' >/dev/null 2>&1") }
        try #require(started.status == 0, "\(started.output)")
        let admin = started.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let url = try PostgresURL(admin)
        let open = { try await PostgresStore(
            url: url, baseDigest: "base", history: 1024, timeout: TestTime.scaled(.seconds(60)),
            startTimeout: ScratchPostgres.startTimeout, logger: Self.logger) }
        let writer = try await open(), follower = try await open()
        #expect(try await writer.commit(.upsert(id: "before", body: Data("{}".utf8))) == 1)

        // From now on every synchronous commit waits for a standby that never comes.
        await ScratchPostgres.psql(admin, "ALTER SYSTEM SET synchronous_standby_names = 'never'")
        await ScratchPostgres.psql(admin, "SELECT pg_reload_conf()")
        // Taken up once a probe's commit waits for it: that wait is then cancelled (the commit is kept).
        #expect(try await Self.eventually {
            let finished = Locked(false)
            let probe = Task {
                _ = await ChildProcess.run("/usr/bin/env", [
                    "psql", admin + "&application_name=probe", "-qAt", "-c", "BEGIN",
                    "-c", "SELECT pg_logical_emit_message(true, 'probe', '')", "-c", "COMMIT",
                ])
                finished.withLock { $0 = true }
            }
            var waited = false
            _ = try await Self.eventually {
                waited = await Self.value(admin, """
                    SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'probe' AND wait_event = 'SyncRep'
                    """) == "t"
                return waited || finished.withLock { $0 }
            }
            await probe.value
            return waited
        })
        let answered = Locked<Int64?>(nil)
        let writing = Task {
            let sequence = try await writer.commit(.upsert(id: "held", body: Data("{}".utf8)))
            answered.withLock { $0 = sequence }
            return sequence
        }
        // The group committed (others see the head moved: its lock is free) while its flush waits.
        #expect(try await Self.eventually { await Self.value(admin, "SELECT head FROM signalbox_meta") == "2" })
        #expect(try await Self.eventually {
            await Self.value(admin, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'") == "1"
        })
        #expect(answered.withLock { $0 } == nil)

        // The replica's next write: its group commits on another lane while the first one's flush
        // waits (head 3), and it is not answered either (held by its own flush and by the group before it).
        let answeredNext = Locked<Int64?>(nil)
        let writingNext = Task {
            let sequence = try await writer.commit(.upsert(id: "next", body: Data("{}".utf8)))
            answeredNext.withLock { $0 = sequence }
            return sequence
        }
        #expect(try await Self.eventually { await Self.value(admin, "SELECT head FROM signalbox_meta") == "3" })
        #expect(try await Self.eventually {
            await Self.value(admin, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'") == "2"
        })
        #expect(answered.withLock { $0 } == nil && answeredNext.withLock { $0 } == nil)

        // A follower reads the rows, and holds them until its own flush returns.
        let read = Locked<[Int64]?>(nil)
        let reading = Task {
            let changes = try await follower.changes(after: 1, limit: 10).changes.map(\.sequence)
            read.withLock { $0 = changes }
            return changes
        }
        #expect(try await Self.eventually {
            await Self.value(admin, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'") == "3"
        })
        #expect(read.withLock { $0 } == nil && answered.withLock { $0 } == nil && answeredNext.withLock { $0 } == nil)

        await ScratchPostgres.psql(admin, "ALTER SYSTEM RESET synchronous_standby_names")
        await ScratchPostgres.psql(admin, "SELECT pg_reload_conf()")
        #expect(try await writing.value == 2)
        #expect(try await writingNext.value == 3)
        #expect(try await reading.value == [2, 3])
        await writer.close()
        await follower.close()
    }
}
