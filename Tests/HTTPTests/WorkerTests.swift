import Base
import Dispatch
@testable import HTTP
import HTTPTesting
import Logging
import Rx
import Testing

/// Workers of different servers in one process.
@Suite("Workers", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct WorkerTests {
    /// A handler of one server answers a request waiting on another: the answer must be written
    /// on the waiting connection's own worker queue. Worker 0 of both servers once counted as
    /// current on either queue (the queue was marked with the worker's index), so the answer was
    /// written at once on the other server's queue, beside that server's connections.
    @Test func anAnswerFromAnotherServersWorkerIsWrittenOnTheConnectionsOwnWorker() async throws {
        let released = PublishRelay<Void>()
        let waitingRoute = Latch()
        let waiter = Router()
        waiter.get("/wait") { _ -> Single<String> in
            released.take(1).do(onSubscribed: { waitingRoute.open() }).map { "done" }.asSingle()
        }
        let releaser = Router()
        releaser.get("/release") { _ -> String in
            released.accept(())  // on the releasing server's worker 0
            return "released"
        }
        let handler = QueueRecordingLogHandler()
        let logger = Logger(label: "test.worker") { _ in handler }
        try await waiter.withTestClient(.live(ServerConfiguration(workerCount: 1), logger: logger)) { waiting in
            try waiting.liveServer.onEachWorker { $0.queue.setSpecific(key: QueueRecordingLogHandler.marker, value: "waiting server") }
            try await releaser.withTestClient(.live(workerCount: 1)) { releasing in
                let request = Task { try await waiting.execute(.get, "/wait") }
                await waitingRoute.wait()
                let released = try await releasing.execute(.get, "/release")
                #expect(released.text == "released")
                #expect(try await request.value.text == "done")
            }
            try await waiting.liveServer.shutdown(gracePeriod: TestTime.scaled(.seconds(1)))
        }
        // The access line is written where the response was: on the waiting server's worker.
        #expect(handler.queues.withLock { $0 } == ["waiting server"])
    }
}

/// Records, for each access line, the marker of the queue it was logged on.
final class QueueRecordingLogHandler: LogHandler, @unchecked Sendable {
    static let marker = DispatchSpecificKey<String>()
    let queues = Locked<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard "\(event.message)" == "request" else { return }
        let queue = DispatchQueue.getSpecific(key: Self.marker) ?? "another queue"
        queues.withLock { $0.append(queue) }
    }
}
