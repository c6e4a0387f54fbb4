import Foundation
@testable import HTTP
import HTTPTesting
import HTTPTypes
import Synchronization
import Testing

/// Routes answering with `Awaited` async work: the status each outcome answers with, over both
/// transports, and work that runs to its end when the client leaves (a write is never half done).
@Suite("Awaited routes", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct AwaitedRouteTests {
    @Test(arguments: TestTransport.all)
    func awaitedWorkAnswersWithItsValueOrItsProblem(over transport: TestTransport) async throws {
        let router = Router()
        router.get("/value") { _ -> Awaited<String> in Awaited { "done" } }
        router.put("/documents/:id") { request -> Awaited<Response> in
            let id = request.parameters["id"] ?? ""
            return Awaited { Response(status: .noContent, headerFields: [.eTag: "\"\(id)\""]) }
        }
        router.get("/document") { _ -> Awaited<Document> in Awaited { Document(id: "1", title: "One") } }
        router.get("/refused") { _ -> Awaited<String> in Awaited { throw HTTPError(.conflict, detail: "busy") } }
        router.get("/crashes") { _ -> Awaited<String> in Awaited { throw CancellationError() } }
        router.get("/throws") { _ -> Awaited<String> in throw HTTPError(.badRequest, detail: "no") }

        try await router.withTestClient(transport) { client in
            let value = try await client.execute(.get, "/value")
            #expect(value.status == .ok)
            #expect(value.text == "done")
            let put = try await client.execute(.put, "/documents/7", body: Array("{}".utf8))
            #expect(put.status == .noContent)
            #expect(put.headerFields[.eTag] == "\"7\"")
            let document = try await client.execute(.get, "/document")
            #expect(document.headerFields[.contentType] == "application/json")
            #expect(try JSONDecoder().decode(Document.self, from: Data(document.body)) == Document(id: "1", title: "One"))
            for (path, status) in [("/refused", 409), ("/throws", 400)] {
                let reply = try await client.execute(.get, path)
                #expect(reply.status.code == status, "\(path)")
                #expect(reply.headerFields[.contentType] == "application/problem+json", "\(path)")
            }
            let crash = try await client.execute(.get, "/crashes")
            #expect(crash.status == .internalServerError)
            #expect(!crash.text.contains("Cancellation"))
        }
    }

    /// Unlike a `Single` in flight, the work is not stopped when its client goes away.
    @Test(arguments: TestTransport.all)
    func workRunsToItsEndWhenTheClientLeaves(over transport: TestTransport) async throws {
        let started = Latch(), release = Latch(), finished = Latch()
        let cancelled = Mutex<Bool?>(nil)
        let router = Router()
        router.put("/write") { _ -> Awaited<String> in
            Awaited { () async -> String in
                started.open()
                await release.wait()
                cancelled.withLock { $0 = Task.isCancelled }
                finished.open()
                return "written"
            }
        }
        try await router.withTestClient(transport) { client in
            let request = Task { try await client.execute(.put, "/write") }
            await started.wait()
            request.cancel()
            #expect(await (try? request.value) == nil)
            release.open()
            await finished.wait()
            #expect(cancelled.withLock { $0 } == false)
        }
    }

    @Test func aFieldsValueIsWhatTheSubscriptGives() {
        var fields: HTTPFields = [.contentType: "application/json", .accept: "text/plain"]
        #expect(fields.value(of: .contentType) == "application/json")
        #expect(fields.value(of: .authorization) == nil)
        #expect(fields.value(of: HTTPField.Name("CONTENT-type")!) == "application/json")
        fields.append(HTTPField(name: .accept, value: "application/json"))
        #expect(fields.value(of: .accept) == "text/plain, application/json")
        for name in [HTTPField.Name.contentType, .accept, .authorization] { #expect(fields.value(of: name) == fields[name]) }
    }
}
