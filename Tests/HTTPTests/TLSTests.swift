#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
@testable import HTTP
import HTTPTesting
import HTTPTypes
import Rx
import Testing

/// HTTPS over real sockets, with certificates made at test time by `openssl req`.
@Suite("TLS", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct TLSTests {
    static func router(events: PublishRelay<ServerSentEvent>? = nil, subscribed: Latch? = nil) -> Router {
        let router = Router()
        router.get("/hello") { _ in "hello" }
        router.get("/echo/:word") { request in request.parameters["word"] ?? "" }
        router.get("/big") { _ in Response(status: .ok, headerFields: [.contentType: "application/octet-stream"], body: Self.bigBody) }
        if let events {
            router.get("/events") { _ -> Signal<ServerSentEvent> in
                events.asObservable().do(onSubscribed: { subscribed?.open() }).asSignal(onErrorSignalWith: .empty())
            }
        }
        return router
    }

    static let bigBody = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }

    static func tls(_ pair: TestPKI.Pair, handshakeTimeout: Duration = TestTime.scaled(.seconds(10)), redirectPort: Int? = nil) -> TLSConfiguration {
        TLSConfiguration(certificateChainFile: pair.certificate, privateKeyFile: pair.key, handshakeTimeout: handshakeTimeout, redirectPort: redirectPort)
    }

    @Test func curlAndTheLiveClientGetAnAnswerOverTLS() async throws {
        let pki = try TestPKI()
        let pair = try await pki.issue("server")
        try await Self.router().withTestClient(.live(tls: Self.tls(pair))) { client in
            let port = try #require(client.port)
            let result = await ChildProcess.run("/usr/bin/curl", [
                "-sS", "--max-time", "\(Int(TestTime.scaled(seconds: 10)))", "--cacert", pair.certificate, "-w", "\n%{http_code} %{scheme} %{ssl_verify_result}",
                "https://localhost:\(port)/echo/tls", "--resolve", "localhost:\(port):127.0.0.1",
            ])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output == "tls\n200 HTTPS 0")
            // The live transport trusts the server's own certificate.
            #expect(try await client.execute(.get, "/echo/tls").text == "tls")
        }
    }

    @Test func negotiatesTLS13WithALPNAndKeepsTheConnectionAlive() async throws {
        let pki = try TestPKI()
        let pair = try await pki.issue("server")
        try await Self.router().withTestClient(.live(tls: Self.tls(pair))) { client in
            let connection = try client.connect()
            try await connection.startTLS(caFile: pair.certificate)
            #expect(connection.tlsVersion == "TLSv1.3")
            #expect(connection.alpnProtocol == "http/1.1")
            // Keep-alive and pipelining work as over plain TCP.
            try await connection.send("GET /echo/one HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/two HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().text == "one")
            #expect(try await connection.readResponse().text == "two")
            try await connection.send("GET /echo/three HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().text == "three")
        }
    }

    @Test func tls12UsesAnECDHEAEADSuiteAndTLS11IsRefused() async throws {
        let pki = try TestPKI()
        let pair = try await pki.issue("server")
        try await Self.router().withTestClient(.live(tls: Self.tls(pair))) { client in
            let tls12 = try client.connect()
            try await tls12.startTLS(caFile: pair.certificate, versions: .tls1_2 ... .tls1_2)
            #expect(tls12.tlsVersion == "TLSv1.2")
            let cipher = try #require(tls12.tlsCipher)
            #expect(cipher.hasPrefix("ECDHE-") && (cipher.contains("GCM") || cipher.contains("CHACHA20")))
            try await tls12.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await tls12.readResponse().text == "hello")

            let tls11 = try client.connect()
            await #expect(throws: TestClientError.self) {
                try await tls11.startTLS(caFile: pair.certificate, versions: .tls1_0 ... .tls1_1)
            }
        }
    }

    /// The 503 is produced before the client's hello arrives: the TLS write
    /// waits for the peer's record (WANT_READ) and goes out after the handshake.
    @Test func overTheConnectionLimitATLSClientGets503AfterItsHandshake() async throws {
        let pki = try TestPKI()
        let pair = try await pki.issue("server")
        try await Self.router().withTestClient(.live(settings: ServerSettings(maxConnections: 1), tls: Self.tls(pair))) { client in
            let first = try client.connect()
            try await first.startTLS(caFile: pair.certificate)
            try await first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await first.readResponse().text == "hello")
            let second = try client.connect()
            try await second.startTLS(caFile: pair.certificate)
            let reply = try await second.readResponse()
            #expect(reply.status == 503)
            #expect(reply.header("Retry-After") == "1")
        }
    }

    @Test func plainHTTPOnTheTLSPortGetsAPlain400() async throws {
        let pki = try TestPKI()
        try await Self.router().withTestClient(.live(tls: Self.tls(try await pki.issue("server")))) { client in
            let connection = try client.connect()
            try await connection.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = String(decoding: try await connection.readToEnd(), as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.0 400 Bad Request\r\n"))
            #expect(text.hasSuffix("\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"))
            #expect(text.contains("Connection: close\r\n"))
        }
    }

    @Test func aSilentClientIsClosedAfterTheHandshakeTimeout() async throws {
        let pki = try TestPKI()
        let transport = TestTransport.live(
            settings: ServerSettings(headerReadTimeout: .seconds(30)),
            tls: Self.tls(try await pki.issue("server"), handshakeTimeout: .milliseconds(200)))
        try await Self.router().withTestClient(transport) { client in
            // One sends nothing, one stops within its ClientHello's record header.
            let silent = try client.connect(receiveTimeout: .seconds(10))
            let stalled = try client.connect(receiveTimeout: .seconds(10))
            try await stalled.send([0x16, 0x03, 0x01])
            #expect(try await silent.isClosedByServer())
            #expect(try await stalled.isClosedByServer())
        }
    }

    @Test func aStalledHandshakeDoesNotHoldUpOtherClients() async throws {
        let pki = try TestPKI()
        let pair = try await pki.issue("server")
        // One worker: every connection shares its queue.
        try await Self.router().withTestClient(.live(tls: Self.tls(pair), workerCount: 1)) { client in
            var stalled: [RawConnection] = []
            for _ in 0..<8 {
                let connection = try client.connect()
                try await connection.send([0x16, 0x03, 0x01, 0x02])  // a record header promising 512 bytes that never come
                stalled.append(connection)
            }
            for word in ["a", "b", "c"] {
                let connection = try client.connect()
                try await connection.startTLS(caFile: pair.certificate)
                try await connection.send("GET /echo/\(word) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await connection.readResponse().text == word)
            }
            #expect(stalled.count == 8)
        }
    }

    /// A small send buffer makes the server's TLS writes wait for the socket (WANT_WRITE).
    @Test func aLargeResponseGoesOutThroughPartialWrites() async throws {
        let pki = try TestPKI()
        let pair = try await pki.issue("server")
        try await Self.router().withTestClient(.live(socketSendBufferSize: 16 * 1024, tls: Self.tls(pair))) { client in
            let connection = try client.connect()
            try await connection.startTLS(caFile: pair.certificate)
            try await connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = try await connection.readResponse()
            #expect(reply.status == 200)
            #expect(reply.body == Self.bigBody)
            try await connection.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().text == "hello")
        }
    }

    @Test func eventStreamOverTLSWithHeartbeatAndCleanShutdown() async throws {
        let pki = try TestPKI()
        let pair = try await pki.issue("server")
        let events = PublishRelay<ServerSentEvent>()
        let subscribed = Latch()
        let transport = TestTransport.live(settings: ServerSettings(heartbeatInterval: .milliseconds(50)), tls: Self.tls(pair))
        try await Self.router(events: events, subscribed: subscribed).withTestClient(transport) { client in
            let connection = try client.connect()
            try await connection.startTLS(caFile: pair.certificate)
            try await connection.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try await connection.readHead()
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream")
            await subscribed.wait()
            events.accept(ServerSentEvent(id: "1", data: "over tls"))
            #expect(try await EventStreamTests.readEvent(connection) == "id: 1\ndata: over tls\n\n")
            #expect(try await connection.readEventBlock() == ": heartbeat\n\n")
            // Shutdown ends the stream with its last chunk, then close_notify.
            try await client.liveServer.shutdown(gracePeriod: TestTime.scaled(.seconds(1)))
            while try await connection.readChunk() != nil {}
            #expect(try await connection.readToEnd().isEmpty)
            #expect(connection.receivedCloseNotify)
        }
    }

    @Test func reloadServesTheNewCertificateAndKeepsAnOpenStream() async throws {
        let pki = try TestPKI()
        let live = try await pki.issue("live")
        let next = try await pki.issue("next")
        let firstFingerprint = try await pki.fingerprint(live.certificate)
        let nextFingerprint = try await pki.fingerprint(next.certificate)
        let events = PublishRelay<ServerSentEvent>()
        let subscribed = Latch()
        try await Self.router(events: events, subscribed: subscribed).withTestClient(.live(tls: Self.tls(live))) { client in
            let stream = try client.connect()
            try await stream.startTLS(caFile: live.certificate)
            #expect(stream.peerFingerprint == firstFingerprint)
            try await stream.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await stream.readHead().status == 200)
            await subscribed.wait()

            // The operator replaces the files, then SIGHUP applies the settings.
            try pki.copy(next.certificate, to: live.certificate)
            try pki.copy(next.key, to: live.key)
            try client.liveServer.apply(ServerSettings())

            let fresh = try client.connect()
            try await fresh.startTLS(caFile: next.certificate)
            #expect(fresh.peerFingerprint == nextFingerprint)
            try await fresh.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await fresh.readResponse().text == "hello")

            events.accept(ServerSentEvent(id: "2", data: "after reload"))
            #expect(try await EventStreamTests.readEvent(stream) == "id: 2\ndata: after reload\n\n")
        }
    }

    @Test func aBadReloadKeepsTheCurrentCertificate() async throws {
        let pki = try TestPKI()
        let live = try await pki.issue("live")
        let other = try await pki.issue("other")
        let fingerprint = try await pki.fingerprint(live.certificate)
        let originalCertificate = pki.path("original.crt")
        try pki.copy(live.certificate, to: originalCertificate)
        try await Self.router().withTestClient(.live(tls: Self.tls(live))) { client in
            let server = try client.liveServer
            let expired = try await pki.expired("expired", key: live.key)
            let badFiles: [(certificate: String, key: String?)] = [
                (other.certificate, nil),                       // key does not match
                (expired, nil),                                 // expired
                (try pki.write("not a certificate\n", to: "junk.crt"), nil),
            ]
            for bad in badFiles {
                try pki.copy(bad.certificate, to: live.certificate)
                server.apply(ServerSettings())
                let connection = try client.connect()
                try await connection.startTLS(caFile: originalCertificate)
                #expect(connection.peerFingerprint == fingerprint)
                try await connection.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try await connection.readResponse().text == "hello")
            }
            // An unreadable key.
            try pki.copy(originalCertificate, to: live.certificate)
            #expect(unlink(live.key) == 0)
            server.apply(ServerSettings())
            let connection = try client.connect()
            try await connection.startTLS(caFile: originalCertificate)
            #expect(connection.peerFingerprint == fingerprint)
        }
    }

    @Test func startRefusesUnusableCertificatesWithAClearMessage() async throws {
        let pki = try TestPKI()
        let pair = try await pki.issue("server")
        let other = try await pki.issue("other")
        let expired = try await pki.expired("expired", key: pair.key)
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
        try await Self.router().withTestClient(.live(tls: Self.tls(try await pki.issue("server"), redirectPort: 0))) { client in
            let server = try client.liveServer
            let port = try #require(server.port)
            let connection = try RawConnection(port: try #require(server.redirectPort))
            try await connection.send("GET /search?q=z%C3%BCrich&limit=2 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
            let reply = try await connection.readResponse()
            #expect(reply.status == 308)
            #expect(reply.header("Location") == "https://example.com:\(port)/search?q=z%C3%BCrich&limit=2")
            try await connection.send("POST /documents HTTP/1.1\r\nHost: [::1]\r\nContent-Length: 2\r\n\r\n{}")
            let post = try await connection.readResponse()
            #expect(post.status == 308)
            #expect(post.header("Location") == "https://[::1]:\(port)/documents")
        }
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
