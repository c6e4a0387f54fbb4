import Dispatch
@testable import HTTP
import Rx
import Synchronization
import Testing

/// Many clients at once, handlers finishing on other threads, clients that
/// vanish mid-request: meant to be run under `--sanitize=thread` too.
@Suite("Stress", .timeLimit(.minutes(1)))
struct StressTests {
    @Test func concurrentClientsWithOffThreadHandlersAndDisconnects() async throws {
        let scheduler = ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: "stress.handlers", attributes: .concurrent))
        let router = Router()
        router.get("/echo/:n") { request -> Single<String> in
            Single.just(request.parameters["n"] ?? "").observe(on: scheduler)
        }
        router.get("/never") { _ -> Single<String> in Single.create { _ in Disposables.create() } }
        let server = try startServer(router)
        let port = server.port!
        let failures = Atomic<Int>(0)

        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            do {
                let client = try TestClient(port: port)
                for index in 0..<50 {
                    // Pipeline two requests at a time.
                    try client.send("GET /echo/\(worker)-\(index) HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                    let first = try client.readResponse().text
                    let second = try client.readResponse().text
                    if first != "\(worker)-\(index)" || second != "\(index)" { failures.add(1, ordering: .relaxed) }
                }
                // Leave with a request in flight.
                let leaving = try TestClient(port: port)
                try leaving.send("GET /never HTTP/1.1\r\nHost: x\r\n\r\n")
            } catch {
                failures.add(1, ordering: .relaxed)
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        await server.shutdown(gracePeriod: .seconds(2))
        #expect(server.openConnections == 0)
    }
}
