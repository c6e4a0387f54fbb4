import CZlib
import Foundation
@testable import HTTP
import HTTPTesting
import HTTPTypes
import Testing

/// Response encoding over real sockets (gzip, HEAD, request IDs, curl), and problem bodies and
/// routing errors over both transports.
@Suite("Responses", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct ResponseTests {
    static let big = String(repeating: "signalbox ", count: 500)

    static func router() -> Router {
        let router = Router()
        router.get("/big") { _ in big }
        router.get("/small") { _ in "small" }
        router.put("/documents/:id") { request in "put \(request.parameters["id"] ?? "")" }
        router.get("/search") { request in "q=\(request.query["q"] ?? "-") tags=\(request.queryItems(named: "tag").joined(separator: ","))" }
        router.get("/teapot") { _ -> Response in throw HTTPError(.init(code: 418), detail: "short and stout", headerFields: [.retryAfter: "5"]) }
        router.get("/crash") { _ -> String in throw CocoaError(.fileNoSuchFile) }
        router.get("/files/*") { request in request.parameters["*"] ?? "" }
        return router
    }

    @Test func gzipWhenAcceptedAndLargeEnough() async throws {
        try await Self.router().withTestClient(.live) { client in
            let reply = try await client.execute(.get, "/big", headerFields: [.acceptEncoding: "br, gzip;q=0.8"])
            #expect(reply.header("Content-Encoding") == "gzip")
            #expect(reply.header("Vary") == "Accept-Encoding")
            #expect(reply.body.count < Self.big.utf8.count)
            #expect(String(decoding: try gunzip(reply.body), as: UTF8.self) == Self.big)

            let refused = try await client.execute(.get, "/big", headerFields: [.acceptEncoding: "gzip;q=0, *"])
            #expect(refused.header("Content-Encoding") == nil)
            #expect(refused.header("Vary") == "Accept-Encoding")
            #expect(refused.text == Self.big)

            let small = try await client.execute(.get, "/small", headerFields: [.acceptEncoding: "gzip"])
            #expect(small.header("Content-Encoding") == nil)
            #expect(small.text == "small")
        }
    }

    @Test func headHasGetsHeadersWithoutBody() async throws {
        try await Self.router().withTestClient(.live) { client in
            let connection = try client.connect()
            try await connection.send("HEAD /small HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try await connection.readResponse(toHEAD: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "5")
            #expect(head.header("Content-Type") == "text/plain; charset=utf-8")
            // The next response follows at once: the HEAD response carried no body.
            #expect(try await connection.readResponse().text == "small")
        }
    }

    @Test(arguments: TestTransport.all)
    func unknownPathIs404AndWrongMethodIs405WithAllow(over transport: TestTransport) async throws {
        try await Self.router().withTestClient(transport) { client in
            let missing = try await client.execute(.get, "/nowhere")
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type") == "application/problem+json")
            let problem = try JSONSerialization.jsonObject(with: Data(missing.body)) as? [String: Any]
            #expect(problem?["status"] as? Int == 404)
            #expect(problem?["title"] as? String == "Not Found")
            #expect(problem?["type"] as? String == "about:blank")
            #expect(problem?["instance"] as? String == "/nowhere")

            let wrong = try await client.execute(.delete, "/documents/7")
            #expect(wrong.status == 405)
            #expect(wrong.header("Allow") == "PUT, OPTIONS")

            #expect(try await client.execute(.put, "/documents/a%20b").text == "put a b")
        }
    }

    /// `OPTIONS *` is the server's own answer (no route has the path `*`).
    @Test func optionsStarListsEveryMethod() async throws {
        try await Self.router().withTestClient(.live) { client in
            let options = try await client.execute(.options, "*")
            #expect(options.status == 200)
            #expect(options.header("Allow")?.contains("GET") == true)
            #expect(options.header("Allow")?.contains("PUT") == true)
        }
    }

    @Test(arguments: TestTransport.all)
    func errorsBecomeProblemDetails(over transport: TestTransport) async throws {
        try await Self.router().withTestClient(transport) { client in
            let teapot = try await client.execute(.get, "/teapot")
            #expect(teapot.status == 418)
            #expect(teapot.header("Retry-After") == "5")
            let problem = try JSONSerialization.jsonObject(with: Data(teapot.body)) as? [String: Any]
            #expect(problem?["detail"] as? String == "short and stout")

            let crash = try await client.execute(.get, "/crash")
            #expect(crash.status == 500)
            #expect(!crash.text.contains("fileNoSuchFile"))
            #expect(!crash.text.contains("CocoaError"))
        }
    }

    @Test(arguments: TestTransport.all)
    func queryAndWildcardAreDecoded(over transport: TestTransport) async throws {
        try await Self.router().withTestClient(transport) { client in
            let search = try await client.execute(.get, "/search?q=hello+world%21&tag=a&tag=b%2Cc")
            #expect(search.text == "q=hello world! tags=a,b,c")
            #expect(try await client.execute(.get, "/files/a/b%20c.txt").text == "a/b c.txt")
        }
    }

    @Test func requestIDIsKeptOrGenerated() async throws {
        try await Self.router().withTestClient(.live) { client in
            let connection = try client.connect()
            try await connection.send("GET /small HTTP/1.1\r\nHost: x\r\nX-Request-ID: abc-123\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().header("X-Request-ID") == "abc-123")
            let generated = try await connection.readResponse().header("X-Request-ID")
            #expect(generated != nil && generated != "abc-123")
        }
    }

    @Test func dualStackServesIPv6AndIPv4() async throws {
        let router = Router()
        router.get("/who") { request in request.remoteAddress }
        try await router.withTestClient(.live(host: "::")) { client in
            let curl = await ChildProcess.run("/usr/bin/curl", ["-s", "-g", "http://[::1]:\(try #require(client.port))/who"])
            #expect(curl.output == "::1")

            #expect(try await client.execute(.get, "/who").text == "::ffff:127.0.0.1")
        }
    }

    @Test func curlIsServed() async throws {
        try await Self.router().withTestClient(.live) { client in
            let curl = await ChildProcess.run("/usr/bin/curl", ["-s", "--compressed", "-D", "-", "http://127.0.0.1:\(try #require(client.port))/big"])
            let text = curl.output
            #expect(curl.status == 0)
            #expect(text.hasPrefix("HTTP/1.1 200 OK"))
            #expect(text.lowercased().contains("content-encoding: gzip"))
            #expect(text.hasSuffix(Self.big))
        }
    }
}

/// Inflates a gzip member with zlib.
func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    var stream = z_stream()
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        throw TestFailure("inflateInit2 failed")
    }
    defer { inflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: 1 << 20)
    let status: Int32 = bytes.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { out in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            return inflate(&stream, Z_FINISH)
        }
    }
    guard status == Z_STREAM_END else { throw TestFailure("inflate failed: \(status)") }
    return Array(output[..<Int(stream.total_out)])
}
