import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking HTTP/1.1 client over a raw socket, for end-to-end tests:
/// sends exact bytes and parses exactly what the server wrote. Every read has
/// a timeout, so a broken server fails a test instead of hanging it.
final class TestClient {
    struct Reply {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let fd: Int32
    private var buffer: [UInt8] = []
    /// Set by `startTLS`: reads and writes then go through this session.
    private(set) var session: OpaquePointer?

    init(port: Int, receiveTimeout seconds: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw Failure(description: "connect failed: errno \(errno)") }
    }

    deinit {
        if let session { SSL_free(session) }
        close(fd)
    }

    /// Sends and receives through `session` from now on (see `startTLS`).
    func attach(_ session: OpaquePointer) {
        self.session = session
    }

    /// Closes the sending side (`shutdown(SHUT_WR)`): the server reads the end of input.
    func closeOutput() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Sets the kernel receive buffer (before reading), to make a slow reader.
    func setReceiveBuffer(_ bytes: Int32) {
        var value = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { bytes in
                if let session {
                    return Int(SSL_write(session, bytes.baseAddress! + offset, Int32(bytes.count - offset)))
                }
                return systemSend(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += count
        }
    }

    /// Reads more bytes; false at end of stream.
    @discardableResult
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        if let session {
            let count = SSL_read(session, &chunk, Int32(chunk.count))
            if count > 0 {
                buffer += chunk[..<Int(count)]
                return true
            }
            switch SSL_get_error(session, count) {
            case SSL_ERROR_ZERO_RETURN: return false  // close_notify
            case SSL_ERROR_WANT_READ: throw Failure(description: "TLS read timed out")
            default: throw Failure(description: "TLS read failed: \(TLSTestSupport.reason())")
            }
        }
        let count = recv(fd, &chunk, chunk.count, 0)
        if count > 0 {
            buffer += chunk[..<count]
            return true
        }
        if count == 0 { return false }
        if errno == ECONNRESET { return false }
        throw Failure(description: "recv failed: errno \(errno) (timeout?)")
    }

    func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 10) {
                let line = buffer[..<index]
                buffer.removeFirst(index + 1)
                return String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
            }
            guard try fill() else { throw Failure(description: "closed while reading a line") }
        }
    }

    func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw Failure(description: "closed while reading \(count) bytes") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads the head of one response (skipping 1xx when asked).
    func readHead(skipInterim: Bool = true) throws -> Reply {
        while true {
            let statusLine = try readLine()
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
                throw Failure(description: "bad status line: \(statusLine)")
            }
            var headers: [(String, String)] = []
            while true {
                let line = try readLine()
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header: \(line)") }
                headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters()))
            }
            let reply = Reply(status: status, headers: headers, body: [])
            if status < 200 && skipInterim { continue }
            return reply
        }
    }

    /// Reads one complete response; `head: true` for a response to HEAD (no body).
    func readResponse(head: Bool = false) throws -> Reply {
        var reply = try readHead()
        if head || reply.status == 204 || reply.status == 304 { return reply }
        if reply.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine, radix: 16) else { throw Failure(description: "bad chunk size \(sizeLine)") }
                if size == 0 {
                    _ = try readLine()
                    break
                }
                reply.body += try readBytes(size)
                _ = try readLine()
            }
        } else if let length = reply.header("Content-Length").flatMap({ Int($0) }) {
            reply.body = try readBytes(length)
        } else {
            reply.body = try readToEnd()
        }
        return reply
    }

    /// Reads the next chunk of a chunked body; nil after the last chunk.
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine, radix: 16) else { throw Failure(description: "bad chunk size \(sizeLine)") }
        if size == 0 {
            _ = try readLine()
            return nil
        }
        let bytes = try readBytes(size)
        _ = try readLine()
        return bytes
    }

    /// Everything until the server closes.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// True when the server has closed the connection (and sent nothing more).
    func isClosedByServer() throws -> Bool {
        try readToEnd().isEmpty
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var slice = self
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

/// The C library's `send`, which `TestClient.send` hides inside the type.
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    send(fd, bytes, count, flags)
}
