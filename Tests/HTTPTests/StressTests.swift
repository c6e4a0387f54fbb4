import Dispatch
@testable import HTTP
import HTTPTesting
import Rx
import Testing

/// Many clients at once, handlers finishing on other threads, clients that
/// vanish mid-request: meant to be run under `--sanitize=thread` too.
@Suite("Stress", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct StressTests {
    @Test func concurrentClientsWithOffThreadHandlersAndDisconnects() async throws {
        let scheduler = ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: "stress.handlers", attributes: .concurrent))
        let router = Router()
        router.get("/echo/:n") { request -> Single<String> in
            Single.just(request.parameters["n"] ?? "").observe(on: scheduler)
        }
        router.get("/never") { _ -> Single<String> in Single.create { _ in Disposables.create() } }
        try await router.withTestClient(.live) { client in
            let failures = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var failures = 0
                        let connection = try client.connect()
                        for index in 0..<50 {
                            // Pipeline two requests at a time.
                            try await connection.send("GET /echo/\(worker)-\(index) HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                            let first = try await connection.readResponse().text
                            let second = try await connection.readResponse().text
                            if first != "\(worker)-\(index)" || second != "\(index)" { failures += 1 }
                        }
                        // Leave with a request in flight.
                        let leaving = try client.connect()
                        try await leaving.send("GET /never HTTP/1.1\r\nHost: x\r\n\r\n")
                        return failures
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(failures == 0)
            let server = try client.liveServer
            await server.shutdown(gracePeriod: TestTime.scaled(.seconds(2)))
            #expect(server.openConnections == 0)
        }
    }
}
