@testable import HTTP
import Base
import HTTPTesting
import Rx
import Testing

/// Bodies handed to their handler as they arrive (`LargerBody.streamed`), over real sockets.
@Suite("Streamed request bodies", .timeLimit(.minutes(TestTime.scaled(minutes: 1))))
struct StreamedBodyTests {
    /// A server whose `POST /stream...` bodies are streamed with at most `buffered` bytes waiting.
    static func configuration(buffered: Int) -> ServerConfiguration {
        var configuration = ServerConfiguration(workerCount: 1)
        configuration.limits.largerBodies = [
            LargerBody(method: "POST", pathPrefix: "/stream", pathSuffix: "", maxLength: 64 << 20, streamed: true, maxBufferedBytes: buffered)
        ]
        return configuration
    }

    /// Reads the whole streamed body; answers `COUNT:SUM` (bytes and their sum, mod 2^32), or the
    /// error that ended it. `seen` hears of each piece as it comes.
    static func router(seen: AsyncStream<Int>.Continuation? = nil) -> Router {
        let router = Router()
        router.get("/hello") { _ in "hello" }
        router.post("/stream") { request -> Single<String> in
            #expect(request.body.isEmpty)
            let stream = request.bodyStream
            return Single.create { observer in
                Task {
                    var count = 0
                    var sum: UInt32 = 0
                    do {
                        for try await piece in stream {
                            count += piece.count
                            for byte in piece { sum &+= UInt32(byte) }
                            seen?.yield(count)
                        }
                        observer(.success("\(count):\(sum)"))
                    } catch {
                        seen?.yield(-1)
                        observer(.success("error: \(error)"))
                    }
                }
                return Disposables.create()
            }
        }
        // Answers at once, reading none of its body.
        router.post("/stream/refuse") { _ -> Single<String> in .error(HTTPError(.unsupportedMediaType, detail: "no")) }
        return router
    }

    static func body(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    static func sum(_ bytes: [UInt8]) -> UInt32 {
        bytes.reduce(UInt32(0)) { $0 &+ UInt32($1) }
    }

    @Test func theHandlerReadsTheBodyBeforeItsEnd() async throws {
        let (seen, heard) = AsyncStream<Int>.makeStream()
        try await Self.router(seen: heard).withTestClient(.live(Self.configuration(buffered: 1 << 20))) { client in
            let connection = try client.connect()
            let body = Self.body(20_000)
            try await connection.send("POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n")
            try await connection.send(Array(body[..<5_000]))
            // The handler has the first part while the rest is not sent yet.
            var iterator = seen.makeAsyncIterator()
            let first = await iterator.next()
            #expect(first == 5_000)
            try await connection.send(Array(body[5_000...]))
            let reply = try await connection.readResponse()
            #expect(reply.status == 200)
            #expect(reply.text == "20000:\(Self.sum(body))")
        }
    }

    /// 8 MiB through a 16 KiB buffer: the socket is held and resumed hundreds of times (a resume
    /// that never came would hang the request past the suite's time limit); every byte arrives, in order.
    @Test func aLargeBodyPassesThroughASmallBuffer() async throws {
        try await Self.router().withTestClient(.live(Self.configuration(buffered: 16 << 10))) { client in
            let connection = try client.connect(receiveTimeout: .seconds(30))
            let body = Self.body(8 << 20)
            try await connection.send("POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            try await connection.send(body)
            let reply = try await connection.readResponse()
            #expect(reply.text == "\(body.count):\(Self.sum(body))")
            // And chunked, on the same connection.
            try await connection.send("POST /stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            var chunked: [UInt8] = []
            for start in stride(from: 0, to: 1 << 20, by: 100_000) {
                let part = Array(body[start..<min(start + 100_000, 1 << 20)])
                chunked += Array((String(part.count, radix: 16) + "\r\n").utf8) + part + Array("\r\n".utf8)
            }
            try await connection.send(chunked + Array("0\r\n\r\n".utf8))
            #expect(try await connection.readResponse().text == "\(1 << 20):\(Self.sum(Array(body[..<(1 << 20)])))")
        }
    }

    /// A handler that answers before reading its body: the rest is read and dropped, and the
    /// connection serves the next request.
    @Test func anEarlyAnswerDropsTheRestAndKeepsTheConnection() async throws {
        try await Self.router().withTestClient(.live(Self.configuration(buffered: 16 << 10))) { client in
            let connection = try client.connect(receiveTimeout: .seconds(30))
            let body = Self.body(4 << 20)
            try await connection.send("POST /stream/refuse HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            try await connection.send(body)
            #expect(try await connection.readResponse().status == 415)
            try await connection.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().text == "hello")
        }
    }

    @Test func aBodyCutShortEndsTheReadWithAnError() async throws {
        let (seen, heard) = AsyncStream<Int>.makeStream()
        try await Self.router(seen: heard).withTestClient(.live(Self.configuration(buffered: 1 << 20))) { client in
            let connection = try client.connect()
            try await connection.send("POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789")
            var iterator = seen.makeAsyncIterator()
            #expect(await iterator.next() == 10)
            connection.disconnect()
            #expect(await iterator.next() == -1)
        }
    }

    /// Routes not marked `streamed` get their body whole, and `bodyStream` gives it as one piece.
    @Test func aWholeBodyIsOnePiece() async throws {
        let stream = RequestBodyStream(whole: Array("abc".utf8))
        var pieces: [[UInt8]] = []
        for try await piece in stream { pieces.append(piece) }
        #expect(pieces == [Array("abc".utf8)])
        var none: [[UInt8]] = []
        for try await piece in RequestBodyStream(whole: []) { none.append(piece) }
        #expect(none.isEmpty)
    }

    /// The bound: `append` reports a full buffer, and the held reads resume once half is read.
    @Test func theBufferReportsFullAndResumesAtHalf() async throws {
        let stream = RequestBodyStream(maxBufferedBytes: 100)
        #expect(stream.append([UInt8](repeating: 1, count: 60)) == false)
        #expect(stream.append([UInt8](repeating: 2, count: 60)) == true)
        let resumed = Locked(0)
        stream.holdReads { resumed.withLock { $0 += 1 } }
        #expect(resumed.withLock { $0 } == 0)
        #expect(try await stream.next()?.first == 1)  // 60 left: not yet half
        #expect(resumed.withLock { $0 } == 0)
        #expect(try await stream.next()?.first == 2)  // 0 left
        #expect(resumed.withLock { $0 } == 1)
        stream.finish()
        #expect(try await stream.next() == nil)
        // After `abandon` what arrives is dropped and never fills the buffer.
        let abandoned = RequestBodyStream(maxBufferedBytes: 10)
        abandoned.abandon()
        #expect(abandoned.append([UInt8](repeating: 0, count: 100)) == false)
    }
}
