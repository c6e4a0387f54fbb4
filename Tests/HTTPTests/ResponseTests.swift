import CZlib
import Foundation
@testable import HTTP
import HTTPTypes
import Testing

/// Response encoding over real sockets: gzip, HEAD, problem bodies, routing errors, curl.
@Suite("Responses")
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
        let server = try startServer(Self.router())
        let client = try server.client()
        try client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br, gzip;q=0.8\r\n\r\n")
        let reply = try client.readResponse()
        #expect(reply.header("Content-Encoding") == "gzip")
        #expect(reply.header("Vary") == "Accept-Encoding")
        #expect(reply.body.count < Self.big.utf8.count)
        #expect(String(decoding: try gunzip(reply.body), as: UTF8.self) == Self.big)

        try client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0, *\r\n\r\n")
        let refused = try client.readResponse()
        #expect(refused.header("Content-Encoding") == nil)
        #expect(refused.header("Vary") == "Accept-Encoding")
        #expect(refused.text == Self.big)

        try client.send("GET /small HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
        let small = try client.readResponse()
        #expect(small.header("Content-Encoding") == nil)
        #expect(small.text == "small")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func headHasGetsHeadersWithoutBody() async throws {
        let server = try startServer(Self.router())
        let client = try server.client()
        try client.send("HEAD /small HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "5")
        #expect(head.header("Content-Type") == "text/plain; charset=utf-8")
        // The next response follows at once: the HEAD response carried no body.
        #expect(try client.readResponse().text == "small")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func unknownPathIs404AndWrongMethodIs405WithAllow() async throws {
        let server = try startServer(Self.router())
        let client = try server.client()
        try client.send("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
        let missing = try client.readResponse()
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "application/problem+json")
        let problem = try JSONSerialization.jsonObject(with: Data(missing.body)) as? [String: Any]
        #expect(problem?["status"] as? Int == 404)
        #expect(problem?["title"] as? String == "Not Found")
        #expect(problem?["type"] as? String == "about:blank")
        #expect(problem?["instance"] as? String == "/nowhere")

        try client.send("DELETE /documents/7 HTTP/1.1\r\nHost: x\r\n\r\n")
        let wrong = try client.readResponse()
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "PUT, OPTIONS")

        try client.send("PUT /documents/a%20b HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(try client.readResponse().text == "put a b")

        try client.send("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
        let options = try client.readResponse()
        #expect(options.status == 200)
        #expect(options.header("Allow")?.contains("GET") == true)
        #expect(options.header("Allow")?.contains("PUT") == true)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func errorsBecomeProblemDetails() async throws {
        let server = try startServer(Self.router())
        let client = try server.client()
        try client.send("GET /teapot HTTP/1.1\r\nHost: x\r\n\r\n")
        let teapot = try client.readResponse()
        #expect(teapot.status == 418)
        #expect(teapot.header("Retry-After") == "5")
        let problem = try JSONSerialization.jsonObject(with: Data(teapot.body)) as? [String: Any]
        #expect(problem?["detail"] as? String == "short and stout")

        try client.send("GET /crash HTTP/1.1\r\nHost: x\r\n\r\n")
        let crash = try client.readResponse()
        #expect(crash.status == 500)
        #expect(!crash.text.contains("fileNoSuchFile"))
        #expect(!crash.text.contains("CocoaError"))
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func queryAndWildcardAreDecoded() async throws {
        let server = try startServer(Self.router())
        let client = try server.client()
        try client.send("GET /search?q=hello+world%21&tag=a&tag=b%2Cc HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "q=hello world! tags=a,b,c")
        try client.send("GET /files/a/b%20c.txt HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "a/b c.txt")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func requestIDIsKeptOrGenerated() async throws {
        let server = try startServer(Self.router())
        let client = try server.client()
        try client.send("GET /small HTTP/1.1\r\nHost: x\r\nX-Request-ID: abc-123\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().header("X-Request-ID") == "abc-123")
        let generated = try client.readResponse().header("X-Request-ID")
        #expect(generated != nil && generated != "abc-123")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func dualStackServesIPv6AndIPv4() async throws {
        let router = Router()
        router.get("/who") { request in request.remoteAddress }
        let server = try startServer(router, host: "::")
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-g", "http://[::1]:\(server.port!)/who"]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        #expect(String(decoding: data, as: UTF8.self) == "::1")

        let client = try server.client()
        try client.send("GET /who HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "::ffff:127.0.0.1")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func curlIsServed() async throws {
        let server = try startServer(Self.router())
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "--compressed", "-D", "-", "http://127.0.0.1:\(server.port!)/big"]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        #expect(curl.terminationStatus == 0)
        #expect(text.hasPrefix("HTTP/1.1 200 OK"))
        #expect(text.lowercased().contains("content-encoding: gzip"))
        #expect(text.hasSuffix(Self.big))
        await server.shutdown(gracePeriod: .seconds(1))
    }
}

/// Inflates a gzip member with zlib.
func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    var stream = z_stream()
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        throw TestClient.Failure(description: "inflateInit2 failed")
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
    guard status == Z_STREAM_END else { throw TestClient.Failure(description: "inflate failed: \(status)") }
    return Array(output[..<Int(stream.total_out)])
}
