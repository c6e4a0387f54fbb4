import Base
import Dispatch
@testable import HTTP
import Logging
import Rx
import Testing

/// Workers of different servers in one process.
@Suite("Workers", .timeLimit(.minutes(1)))
struct WorkerTests {
    /// A handler of one server answers a request waiting on another: the answer must be written
    /// on the waiting connection's own worker queue. Worker 0 of both servers once counted as
    /// current on either queue (the queue was marked with the worker's index), so the answer was
    /// written at once on the other server's queue, beside that server's connections.
    @Test func anAnswerFromAnotherServersWorkerIsWrittenOnTheConnectionsOwnWorker() async throws {
        let released = PublishRelay<Void>()
        let waiting = Latch()
        let waiter = Router()
        waiter.get("/wait") { _ -> Single<String> in
            released.take(1).map { "done" }.asSingle().do(onSubscribe: { waiting.open() })
        }
        let releaser = Router()
        releaser.get("/release") { _ -> String in
            released.accept(())  // on the releasing server's worker 0
            return "released"
        }
        let handler = QueueRecordingLogHandler()
        var logger = Logger(label: "test.worker") { _ in handler }
        logger.logLevel = .info
        let waitingServer = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, workerCount: 1), router: waiter, logger: logger)
        try waitingServer.start()
        waitingServer.onEachWorker { $0.queue.setSpecific(key: QueueRecordingLogHandler.marker, value: "waiting server") }
        let releasingServer = try startServer(releaser, workerCount: 1)

        let client = try waitingServer.client()
        try client.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        await waiting.wait()
        let other = try releasingServer.client()
        try other.send("GET /release HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try other.readResponse().text == "released")
        #expect(try client.readResponse().text == "done")
        await waitingServer.shutdown(gracePeriod: .seconds(1))
        await releasingServer.shutdown(gracePeriod: .seconds(1))
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
