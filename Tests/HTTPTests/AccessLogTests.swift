@testable import HTTP
import Base
import HTTPTesting
import Logging
import Rx
import Synchronization
import Testing

/// Keeps every record, for assertions on log output.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    struct Record: Sendable {
        let message: String
        let metadata: [String: String]
    }

    let records = Locked<[Record]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).mapValues { "\($0)" }
        records.withLock { $0.append(Record(message: "\(event.message)", metadata: fields)) }
    }
}

@Suite("Access log")
struct AccessLogTests {
    @Test func oneLinePerRequestWithItsFields() async throws {
        let handler = RecordingLogHandler()
        let router = Router()
        router.get("/hello") { _ in "hello" }
        let transport = TestTransport.live(ServerConfiguration(), logger: Logger(label: "test.access") { _ in handler })
        try await router.withTestClient(transport) { client in
            let connection = try client.connect()
            try await connection.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Request-ID: log-1\r\n\r\nGET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().status == 200)
            #expect(try await connection.readResponse().status == 404)
            try await client.liveServer.shutdown(gracePeriod: TestTime.scaled(.seconds(1)))
        }

        let lines = handler.records.withLock { $0 }.filter { $0.message == "request" }
        #expect(lines.count == 2)
        #expect(lines.first?.metadata["method"] == "GET")
        #expect(lines.first?.metadata["path"] == "/hello")
        #expect(lines.first?.metadata["status"] == "200")
        #expect(lines.first?.metadata["bytes"].flatMap(Int.init) ?? 0 > 5)
        #expect(lines.first?.metadata["request_id"] == "log-1")
        #expect(lines.first?.metadata["duration_ms"] != nil)
        #expect(lines.last?.metadata["status"] == "404")
    }

    /// A key or tenant token sent as `?token=` (an EventSource cannot set headers) never reaches the log.
    @Test func theValueOfTokenIsDroppedFromThePath() {
        #expect(AccessLog.redactingToken("/events?token=abc.def.ghi") == "/events?token=REDACTED")
        #expect(AccessLog.redactingToken("/x?q=a&token=s3cret&collection=shop") == "/x?q=a&token=REDACTED&collection=shop")
        #expect(AccessLog.redactingToken("/x?mytoken=a&q=token=b") == "/x?mytoken=a&q=token=b")
        #expect(AccessLog.redactingToken("/search?q=paris") == "/search?q=paris")
        #expect(AccessLog.redactingToken("/x?token=") == "/x?token=REDACTED")
        #expect(AccessLog.redactingToken("/x?a&token=t") == "/x?a&token=REDACTED")
        #expect(AccessLog.redactingToken("/x?token") == "/x?token")
        #expect(AccessLog.redactingToken("/token=x") == "/token=x")
        #expect(AccessLog.redactingToken("/healthz") == "/healthz")
        #expect(AccessLog.redactingToken("/x?é=1&token=t") == "/x?é=1&token=REDACTED")
    }
}
