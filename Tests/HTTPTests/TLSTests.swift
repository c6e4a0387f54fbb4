import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
@testable import HTTP
import HTTPTypes
import Rx
import Testing

/// HTTPS over real sockets, with certificates made at test time by `openssl req`.
@Suite("TLS", .timeLimit(.minutes(1)))
struct TLSTests {
    static func router(events: PublishRelay<ServerSentEvent>? = nil, subscribed: Latch? = nil) -> Router {
        let router = Router()
        router.get("/hello") { _ in "hello" }
        router.get("/echo/:word") { request in request.parameters["word"] ?? "" }
        router.get("/big") { _ in Response(status: .ok, headerFields: [.contentType: "application/octet-stream"], body: Self.bigBody) }
        if let events {
            router.get("/events") { _ -> Signal<ServerSentEvent> in
                events.asSignal().do(onSubscribe: { subscribed?.open() })
            }
        }
        return router
    }

    static let bigBody = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }

    static func tls(_ pair: TestPKI.Pair, handshakeTimeout: Duration = .seconds(10), redirectPort: Int? = nil) -> TLSConfiguration {
        TLSConfiguration(certificateChainFile: pair.certificate, privateKeyFile: pair.key, handshakeTimeout: handshakeTimeout, redirectPort: redirectPort)
    }

    @Test func curlGetsAnAnswerOverTLS() async throws {
        let pki = try TestPKI()
        let pair = try pki.issue("server")
        let server = try startServer(Self.router(), tls: Self.tls(pair))
        let result = try TestPKI.run("/usr/bin/curl", [
            "-sS", "--max-time", "10", "--cacert", pair.certificate, "-w", "\n%{http_code} %{scheme} %{ssl_verify_result}",
            "https://localhost:\(server.port!)/echo/tls", "--resolve", "localhost:\(server.port!):127.0.0.1",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "tls\n200 HTTPS 0")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func negotiatesTLS13WithALPNAndKeepsTheConnectionAlive() async throws {
        let pki = try TestPKI()
        let pair = try pki.issue("server")
        let server = try startServer(Self.router(), tls: Self.tls(pair))
        let client = try server.client()
        try client.startTLS(caFile: pair.certificate)
        #expect(client.tlsVersion == "TLSv1.3")
        #expect(client.alpnProtocol == "http/1.1")
        // Keep-alive and pipelining work as over plain TCP.
        try client.send("GET /echo/one HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/two HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "one")
        #expect(try client.readResponse().text == "two")
        try client.send("GET /echo/three HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "three")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func tls12UsesAnECDHEAEADSuiteAndTLS11IsRefused() async throws {
        let pki = try TestPKI()
        let pair = try pki.issue("server")
        let server = try startServer(Self.router(), tls: Self.tls(pair))
        let tls12 = try server.client()
        try tls12.startTLS(caFile: pair.certificate, maxVersion: TLS1_2_VERSION)
        #expect(tls12.tlsVersion == "TLSv1.2")
        #expect(tls12.tlsCipher.hasPrefix("ECDHE-") && (tls12.tlsCipher.contains("GCM") || tls12.tlsCipher.contains("CHACHA20")))
        try tls12.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try tls12.readResponse().text == "hello")

        let tls11 = try server.client()
        #expect(throws: TestClient.Failure.self) {
            try tls11.startTLS(caFile: pair.certificate, minVersion: TLS1_VERSION, maxVersion: TLS1_1_VERSION)
        }
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// The 503 is produced before the client's hello arrives: the TLS write
    /// waits for the peer's record (WANT_READ) and goes out after the handshake.
    @Test func overTheConnectionLimitATLSClientGets503AfterItsHandshake() async throws {
        let pki = try TestPKI()
        let pair = try pki.issue("server")
        let server = try startServer(Self.router(), settings: ServerSettings(maxConnections: 1), tls: Self.tls(pair))
        let first = try server.client()
        try first.startTLS(caFile: pair.certificate)
        try first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try first.readResponse().text == "hello")
        let second = try server.client()
        try second.startTLS(caFile: pair.certificate)
        let reply = try second.readResponse()
        #expect(reply.status == 503)
        #expect(reply.header("Retry-After") == "1")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func plainHTTPOnTheTLSPortGetsAPlain400() async throws {
        let pki = try TestPKI()
        let server = try startServer(Self.router(), tls: Self.tls(try pki.issue("server")))
        let client = try server.client()
        try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let text = String(decoding: try client.readToEnd(), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.0 400 Bad Request\r\n"))
        #expect(text.hasSuffix("\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"))
        #expect(text.contains("Connection: close\r\n"))
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func aSilentClientIsClosedAfterTheHandshakeTimeout() async throws {
        let pki = try TestPKI()
        let server = try startServer(
            Self.router(), settings: ServerSettings(headerReadTimeout: .seconds(30)),
            tls: Self.tls(try pki.issue("server"), handshakeTimeout: .milliseconds(200)))
        // One sends nothing, one stops within its ClientHello's record header.
        let silent = try server.client(receiveTimeout: 10)
        let stalled = try server.client(receiveTimeout: 10)
        try stalled.send([0x16, 0x03, 0x01])
        #expect(try silent.isClosedByServer())
        #expect(try stalled.isClosedByServer())
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func aStalledHandshakeDoesNotHoldUpOtherClients() async throws {
        let pki = try TestPKI()
        let pair = try pki.issue("server")
        // One worker: every connection shares its queue.
        let server = try startServer(Self.router(), tls: Self.tls(pair), workerCount: 1)
        var stalled: [TestClient] = []
        for _ in 0..<8 {
            let client = try server.client()
            try client.send([0x16, 0x03, 0x01, 0x02])  // a record header promising 512 bytes that never come
            stalled.append(client)
        }
        for word in ["a", "b", "c"] {
            let client = try server.client()
            try client.startTLS(caFile: pair.certificate)
            try client.send("GET /echo/\(word) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().text == word)
        }
        #expect(stalled.count == 8)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    /// A small send buffer makes the server's TLS writes wait for the socket (WANT_WRITE).
    @Test func aLargeResponseGoesOutThroughPartialWrites() async throws {
        let pki = try TestPKI()
        let pair = try pki.issue("server")
        let server = try startServer(Self.router(), socketSendBufferSize: 16 * 1024, tls: Self.tls(pair))
        let client = try server.client()
        try client.startTLS(caFile: pair.certificate)
        try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        let reply = try client.readResponse()
        #expect(reply.status == 200)
        #expect(reply.body == Self.bigBody)
        try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "hello")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func eventStreamOverTLSWithHeartbeatAndCleanShutdown() async throws {
        let pki = try TestPKI()
        let pair = try pki.issue("server")
        let events = PublishRelay<ServerSentEvent>()
        let subscribed = Latch()
        let server = try startServer(
            Self.router(events: events, subscribed: subscribed), settings: ServerSettings(heartbeatInterval: .milliseconds(50)),
            tls: Self.tls(pair))
        let client = try server.client()
        try client.startTLS(caFile: pair.certificate)
        try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        await subscribed.wait()
        events.accept(ServerSentEvent(id: "1", data: "over tls"))
        var event = try EventStreamTests.readEvent(client)
        while event.hasPrefix(":") { event = try EventStreamTests.readEvent(client) }
        #expect(event == "id: 1\ndata: over tls\n\n")
        #expect(try EventStreamTests.readEvent(client) == ": heartbeat\n\n")
        // Shutdown ends the stream with its last chunk, then close_notify.
        await server.shutdown(gracePeriod: .seconds(1))
        while try client.readChunk() != nil {}
        #expect(try client.readToEnd().isEmpty)
        #expect(client.receivedCloseNotify)
    }

    @Test func reloadServesTheNewCertificateAndKeepsAnOpenStream() async throws {
        let pki = try TestPKI()
        let live = try pki.issue("live")
        let next = try pki.issue("next")
        let firstFingerprint = try pki.fingerprint(live.certificate)
        let nextFingerprint = try pki.fingerprint(next.certificate)
        let events = PublishRelay<ServerSentEvent>()
        let subscribed = Latch()
        let server = try startServer(Self.router(events: events, subscribed: subscribed), tls: Self.tls(live))

        let stream = try server.client()
        try stream.startTLS(caFile: live.certificate)
        #expect(stream.peerFingerprint == firstFingerprint)
        try stream.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try stream.readHead().status == 200)
        await subscribed.wait()

        // The operator replaces the files, then SIGHUP applies the settings.
        try pki.copy(next.certificate, to: live.certificate)
        try pki.copy(next.key, to: live.key)
        server.apply(ServerSettings())

        let fresh = try server.client()
        try fresh.startTLS(caFile: next.certificate)
        #expect(fresh.peerFingerprint == nextFingerprint)
        try fresh.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try fresh.readResponse().text == "hello")

        events.accept(ServerSentEvent(id: "2", data: "after reload"))
        var event = try EventStreamTests.readEvent(stream)
        while event.hasPrefix(":") { event = try EventStreamTests.readEvent(stream) }
        #expect(event == "id: 2\ndata: after reload\n\n")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func aBadReloadKeepsTheCurrentCertificate() async throws {
        let pki = try TestPKI()
        let live = try pki.issue("live")
        let other = try pki.issue("other")
        let fingerprint = try pki.fingerprint(live.certificate)
        let originalCertificate = pki.path("original.crt")
        try pki.copy(live.certificate, to: originalCertificate)
        let server = try startServer(Self.router(), tls: Self.tls(live))

        let expired = try pki.expired("expired", key: live.key)
        let badFiles: [(certificate: String, key: String?)] = [
            (other.certificate, nil),                       // key does not match
            (expired, nil),                                 // expired
            (try pki.write("not a certificate\n", to: "junk.crt"), nil),
        ]
        for bad in badFiles {
            try pki.copy(bad.certificate, to: live.certificate)
            server.apply(ServerSettings())
            let client = try server.client()
            try client.startTLS(caFile: originalCertificate)
            #expect(client.peerFingerprint == fingerprint)
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().text == "hello")
        }
        // An unreadable key.
        try pki.copy(originalCertificate, to: live.certificate)
        #expect(unlink(live.key) == 0)
        server.apply(ServerSettings())
        let client = try server.client()
        try client.startTLS(caFile: originalCertificate)
        #expect(client.peerFingerprint == fingerprint)
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func startRefusesUnusableCertificatesWithAClearMessage() throws {
        let pki = try TestPKI()
        let pair = try pki.issue("server")
        let other = try pki.issue("other")
        let expired = try pki.expired("expired", key: pair.key)
        let cases: [(TLSConfiguration, String)] = [
            (TLSConfiguration(certificateChainFile: pair.certificate, privateKeyFile: other.key), "does not match"),
            (TLSConfiguration(certificateChainFile: expired, privateKeyFile: pair.key), "expired on"),
            (TLSConfiguration(certificateChainFile: pki.path("missing.crt"), privateKeyFile: pair.key), "cannot read TLS certificate file"),
            (TLSConfiguration(certificateChainFile: pair.certificate, privateKeyFile: pki.path("missing.key")), "cannot read TLS private key file"),
            (TLSConfiguration(certificateChainFile: pair.key, privateKeyFile: pair.key), "holds no usable PEM certificate"),
        ]
        for (tls, message) in cases {
            let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, tls: tls), router: Self.router())
            let error = #expect(throws: TLSError.self) { try server.start() }
            #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
            #expect(error?.description.contains("\n") == false)
        }
    }

    @Test func theRedirectListenerAnswers308ToHTTPS() async throws {
        let pki = try TestPKI()
        let server = try startServer(Self.router(), tls: Self.tls(try pki.issue("server"), redirectPort: 0))
        let port = try #require(server.port)
        let client = try TestClient(port: try #require(server.redirectPort))
        try client.send("GET /search?q=z%C3%BCrich&limit=2 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
        let reply = try client.readResponse()
        #expect(reply.status == 308)
        #expect(reply.header("Location") == "https://example.com:\(port)/search?q=z%C3%BCrich&limit=2")
        try client.send("POST /documents HTTP/1.1\r\nHost: [::1]\r\nContent-Length: 2\r\n\r\n{}")
        let post = try client.readResponse()
        #expect(post.status == 308)
        #expect(post.header("Location") == "https://[::1]:\(port)/documents")
        await server.shutdown(gracePeriod: .seconds(1))
    }

    @Test func redirectLocations() throws {
        let standard = HTTPSRedirect(httpsPort: 443)
        #expect(standard.location(for: HTTPRequest(method: .get, scheme: nil, authority: "example.com:80", path: "/a?b=c")) == "https://example.com/a?b=c")
        #expect(standard.location(for: HTTPRequest(method: .get, scheme: nil, authority: "example.com", path: "/")) == "https://example.com/")
        #expect(HTTPSRedirect(httpsPort: 8443).location(for: HTTPRequest(method: .get, scheme: nil, authority: "10.0.0.1:8080", path: "/x")) == "https://10.0.0.1:8443/x")
        #expect(standard.location(for: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")) == nil)
        #expect(standard.location(for: HTTPRequest(method: .get, scheme: nil, authority: "a b", path: "/")) == nil)
    }
}
