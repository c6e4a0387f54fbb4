#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server's answer: its status and body.
struct HTTPAnswer {
    let status: Int
    let body: [UInt8]
}

/// One HTTP/1.1 request per connection over a blocking socket (`Connection: close`), with a
/// `Content-Length` body written in pieces so progress can be shown while it goes out.
///
/// Our own, not URLSession: FoundationNetworking would bring libcurl, which the runtime image
/// does not hold (scripts/check-runtime-libs); an import needs nothing more than this.
enum PlainHTTPClient {
    /// How long a read or write may wait: an import is answered only once durable, so this is long.
    static let timeoutSeconds = 600
    /// Bytes written at a time, between progress reports.
    static let writeBytes = 1 << 20
    /// The largest answer taken (an import's answer lists at most 100 errors).
    static let maxAnswerBytes = 16 << 20

    static func request(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8], to address: ServerAddress,
        sent: (Int) -> Void = { _ in }
    ) throws(ImportFailure) -> HTTPAnswer {
        let socket = try openConnection(to: address)
        defer { close(socket) }
        var head = "\(method) \(address.basePath)\(path) HTTP/1.1\r\nHost: \(address.authority)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        // A server may answer (413, 401) and close before taking the whole body: read its answer then.
        if writeAll(socket, Array(head.utf8)) {
            var offset = 0
            while offset < body.count {
                let end = min(offset + writeBytes, body.count)
                guard writeAll(socket, body[offset..<end]) else { break }
                offset = end
                sent(offset)
            }
        }
        return try readAnswer(socket)
    }

    private static func openConnection(to address: ServerAddress) throws(ImportFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(address.host, String(address.port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw .unreachable("\(address.host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var problem = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry?.pointee {
            entry = info.ai_next
            let fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
            guard fd >= 0 else { problem = errno; continue }
            if connect(fd, info.ai_addr, info.ai_addrlen) == 0 {
                var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                return fd
            }
            problem = errno
            close(fd)
        }
        throw .unreachable("\(address.authority): \(String(cString: strerror(problem)))")
    }

    /// Writes all of `bytes`; false when the connection no longer takes them.
    private static func writeAll(_ socket: Int32, _ bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let count = array.withUnsafeBytes { send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    private static func readAnswer(_ socket: Int32) throws(ImportFailure) -> HTTPAnswer {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw .unreachable(errno == EAGAIN ? "no answer in \(timeoutSeconds) s" : String(cString: strerror(errno)))
            }
            if count == 0 { break }
            received += buffer[0..<count]
            guard received.count <= maxAnswerBytes else { throw .unreachable("an answer larger than \(maxAnswerBytes) bytes") }
        }
        return try parse(received)
    }

    /// Status line, headers, then the body: `Content-Length`, chunked, or up to the close.
    private static func parse(_ bytes: [UInt8]) throws(ImportFailure) -> HTTPAnswer {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headEnd = bytes.firstRange(of: separator) else {
            throw .unreachable(bytes.isEmpty ? "the connection closed without an answer" : "an answer that is not HTTP")
        }
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self).split(separator: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]) else {
            throw .unreachable("an answer that is not HTTP")
        }
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
        }
        var body = Array(bytes[headEnd.upperBound...])
        if fields["transfer-encoding"]?.lowercased() == "chunked" {
            body = try dechunk(body)
        } else if let length = fields["content-length"].flatMap({ Int($0) }), length <= body.count {
            body = Array(body[0..<length])
        }
        return HTTPAnswer(status: status, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) throws(ImportFailure) -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while let lineEnd = bytes[index...].firstRange(of: Array("\r\n".utf8)) {
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: " "), radix: 16) else { throw .unreachable("a malformed chunked answer") }
            if size == 0 { return body }
            let start = lineEnd.upperBound
            guard start + size <= bytes.count else { throw .unreachable("a truncated chunked answer") }
            body += bytes[start..<start + size]
            index = min(start + size + 2, bytes.count)
        }
        throw .unreachable("a truncated chunked answer")
    }
}

private extension StringProtocol {
    func trimmingCharacters(in characters: String) -> String {
        String(drop(while: { characters.contains($0) }).reversed().drop(while: { characters.contains($0) }).reversed())
    }
}
