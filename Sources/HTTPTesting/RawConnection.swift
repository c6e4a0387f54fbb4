import Dispatch
import HTTPTypes
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a live server, at the level of bytes: it sends exactly what it is given
/// (malformed requests, half a head, a pipeline of several) and parses exactly what the server
/// wrote. The live transport's requests and streams go through it; a test that needs the wire
/// itself opens one with ``TestClient/connect(receiveTimeout:)``.
///
/// The blocking socket calls run on a queue of the connection's own, so a waiting test holds
/// no thread of Swift's cooperative pool, and each has a timeout (`receiveTimeout`, times
/// ``TestTime/scale``), so a server that stops answering fails the test instead of hanging it.
public final class RawConnection: @unchecked Sendable {
    // @unchecked: a connection belongs to one task at a time, which reads and writes in turn;
    // only `disconnect()` may come from another (a cancelled request), and it touches no state.

    /// The longest a read or a write waits for the server unless told otherwise.
    public static let defaultReceiveTimeout: Duration = .seconds(5)
    /// Bytes asked of the socket per read.
    static let readSize = 64 * 1024

    /// The socket's descriptor (for a socket option a test needs; the connection closes it).
    public let descriptor: Int32
    private let queue = DispatchQueue(label: "signalbox.http-testing.connection")
    /// Bytes read and not yet consumed: `buffer[consumed...]`.
    private var buffer: [UInt8] = []
    private var consumed = 0
    private var isClosed = false
    /// Set by `startTLS`: reads and writes go through this session from then on.
    var tls: TLSClientSession?

    /// Connects to `port` on 127.0.0.1.
    public init(port: Int, receiveTimeout: Duration = RawConnection.defaultReceiveTimeout) throws(TestClientError) {
        // Close-on-exec: a child a test starts (psql, a PostgreSQL server) would otherwise keep
        // a copy, and the close or reset of this connection would not reach the server while it
        // lives (a ResetTests or LimitsTests server waited seconds for a close that way).
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            isClosed = true  // nothing to close (deinit runs on the throw)
            throw TestClientError("socket failed: errno \(errno)")
        }
        // Scaled: a slow (sanitized) run waits longer for the server, as it runs slower too.
        let limit = TestTime.scaled(receiveTimeout)
        let seconds = limit.components.seconds
        let microseconds = limit.components.attoseconds / 1_000_000_000_000
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(microseconds))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let error = errno
            // Every stored property is set, so the throw runs deinit: marked closed, or deinit
            // closed the number again, by then maybe another thread's socket or file (a ResetTests
            // client's send once failed with errno 88, ENOTSOCK).
            isClosed = true
            systemClose(descriptor)
            throw TestClientError("connect to 127.0.0.1:\(port) failed: errno \(error)")
        }
    }

    deinit {
        tls = nil  // frees the session before its socket closes
        if !isClosed { systemClose(descriptor) }
    }

    // MARK: Sending

    public func send(_ text: String) async throws(TestClientError) { try await send(Array(text.utf8)) }

    /// Sends every byte (or fails: the server closed, or took none for `receiveTimeout`).
    public func send(_ bytes: [UInt8]) async throws(TestClientError) {
        let descriptor = descriptor
        let tls = tls
        try await perform { () throws(TestClientError) in
            var offset = 0
            while offset < bytes.count {
                let count = bytes.withUnsafeBytes { raw in
                    let start = raw.baseAddress! + offset
                    if let tls { return Int(tls.write(start, count: bytes.count - offset)) }
                    return systemSend(descriptor, start, bytes.count - offset)
                }
                guard count > 0 else { throw TestClientError("send failed: \(tls.map { $0.lastError() } ?? "errno \(errno)")") }
                offset += count
            }
        }
    }

    /// Closes the sending side (`shutdown(SHUT_WR)`): the server reads the end of the input.
    public func closeOutput() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Leaves as a client that goes away: both directions are shut down (the server sees the
    /// end of the input) and a read in progress ends. Safe from any task.
    public func disconnect() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes with a reset (RST) instead of an orderly close, as a client that crashed.
    public func reset() {
        guard !isClosed else { return }
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        tls = nil
        isClosed = true
        systemClose(descriptor)
    }

    /// Sets the kernel's receive buffer (before reading), to make a slow reader.
    public func setReceiveBuffer(_ bytes: Int) {
        var value = Int32(clamping: bytes)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    // MARK: Reading

    /// One line without its CRLF (or LF).
    public func readLine() async throws(TestClientError) -> String {
        var searched = consumed
        while true {
            if let index = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[consumed..<index]
                consume(through: index + 1)
                return String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
            }
            searched = buffer.count
            guard try await fill() else { throw TestClientError("the server closed the connection within a line") }
        }
    }

    /// Exactly `count` bytes.
    public func readBytes(_ count: Int) async throws(TestClientError) -> [UInt8] {
        while buffer.count - consumed < count {
            guard try await fill() else { throw TestClientError("the server closed the connection before \(count) bytes came") }
        }
        let bytes = Array(buffer[consumed..<(consumed + count)])
        consume(through: consumed + count)
        return bytes
    }

    /// Everything until the server closes.
    public func readToEnd() async throws(TestClientError) -> [UInt8] {
        while try await fill() {}
        let bytes = Array(buffer[consumed...])
        consume(through: buffer.count)
        return bytes
    }

    /// Whether the server closed the connection without sending anything more.
    public func isClosedByServer() async throws(TestClientError) -> Bool {
        try await readToEnd().isEmpty
    }

    /// The head of the next response: its status and fields (`body` empty). Interim (1xx)
    /// responses are skipped unless `skipInterim` is false.
    public func readHead(skipInterim: Bool = true) async throws(TestClientError) -> TestResponse {
        while true {
            let statusLine = try await readLine()
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]), (100...999).contains(code) else {
                throw TestClientError("not a status line: \(statusLine)")
            }
            var fields = HTTPFields()
            while true {
                let line = try await readLine()
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else {
                    throw TestClientError("not a field line: \(line)")
                }
                fields.append(HTTPField(name: name, value: String(line[line.index(after: colon)...]).trimmingSpaces()))
            }
            if code < 200 && skipInterim { continue }
            let reason = parts.count > 2 ? String(parts[2]) : ""
            return TestResponse(status: HTTPResponse.Status(code: code, reasonPhrase: reason), headerFields: fields, body: [])
        }
    }

    /// The next complete response; `toHEAD` for the answer to a HEAD request (no body).
    public func readResponse(toHEAD: Bool = false) async throws(TestClientError) -> TestResponse {
        let head = try await readHead()
        return TestResponse(status: head.status, headerFields: head.headerFields, body: try await readBody(of: head, toHEAD: toHEAD))
    }

    /// The body that follows `head`, by its framing.
    func readBody(of head: TestResponse, toHEAD: Bool) async throws(TestClientError) -> [UInt8] {
        if toHEAD || head.status.code == 204 || head.status.code == 304 { return [] }
        if head.isChunked {
            var body: [UInt8] = []
            while let chunk = try await readChunk() { body += chunk }
            return body
        }
        if let length = head.header("Content-Length") {
            guard let count = Int(length), count >= 0 else { throw TestClientError("bad Content-Length: \(length)") }
            return try await readBytes(count)
        }
        return try await readToEnd()
    }

    /// The next chunk of a chunked body; nil after the last chunk (and its empty trailer).
    public func readChunk() async throws(TestClientError) -> [UInt8]? {
        let sizeLine = try await readLine()
        guard let size = Int(sizeLine, radix: 16), size >= 0 else { throw TestClientError("bad chunk size line: \(sizeLine)") }
        if size == 0 {
            while try await !readLine().isEmpty {}  // trailer fields, then the empty line
            return nil
        }
        let bytes = try await readBytes(size)
        guard try await readLine().isEmpty else { throw TestClientError("a chunk of \(size) bytes is not followed by CRLF") }
        return bytes
    }

    /// The next event-stream block (up to and including its blank line) of a chunked stream,
    /// heartbeat comments included; nil once the stream has ended.
    public func readEventBlock() async throws(TestClientError) -> String? {
        var text = ""
        while !text.hasSuffix("\n\n") {
            guard let chunk = try await readChunk() else { return text.isEmpty ? nil : text }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// The next event-stream block that is not only comments (heartbeats come every 15 s by
    /// default, so a slow run can see one anywhere); nil once the stream has ended.
    public func readEventBlockPastComments() async throws(TestClientError) -> String? {
        while let block = try await readEventBlock() {
            if !block.split(separator: "\n").allSatisfy({ $0.hasPrefix(":") }) { return block }
        }
        return nil
    }

    /// Reads more bytes; false at the end of the stream.
    private func fill() async throws(TestClientError) -> Bool {
        let descriptor = descriptor
        let tls = tls
        let chunk = try await perform { () throws(TestClientError) in try Self.receive(descriptor, tls) }
        guard let chunk else { return false }
        if consumed > 0 && consumed >= buffer.count / 2 {
            buffer.removeFirst(consumed)
            consumed = 0
        }
        buffer += chunk
        return true
    }

    private func consume(through end: Int) {
        consumed = end
        if consumed == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            consumed = 0
        }
    }

    /// One blocking read: bytes, or nil at the end of the stream (a reset counts as one).
    private static func receive(_ descriptor: Int32, _ tls: TLSClientSession?) throws(TestClientError) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: readSize)
        if let tls {
            return try tls.read(into: &chunk)
        }
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count > 0 { return Array(chunk[..<count]) }
        if count == 0 || errno == ECONNRESET { return nil }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw TestClientError("no answer from the server within the receive timeout") }
        throw TestClientError("recv failed: errno \(errno)")
    }

    /// Runs blocking socket work on the connection's queue.
    func perform<T: Sendable>(_ work: @escaping @Sendable () throws(TestClientError) -> T) async throws(TestClientError) -> T {
        let result: Result<T, TestClientError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(TestClientError) in try work() }) }
        }
        return try result.get()
    }
}

extension String {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

// The C calls under other names: the connection's own `send` hides them inside the type.
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
}

func systemClose(_ descriptor: Int32) {
    close(descriptor)
}
