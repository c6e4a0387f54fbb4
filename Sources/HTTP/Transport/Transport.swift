#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a connection reads and writes through: the socket itself, or a TLS
/// session over it. Both are non-blocking and say what they wait for.
enum Transport {
    case plain
    case tls(TLSSession)

    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        switch self {
        case .tls(let session):
            return session.read(into: buffer)
        case .plain:
            while true {
                let count = recv(fd, buffer.baseAddress, buffer.count, 0)
                if count > 0 { return .transferred(count) }
                if count == 0 { return .closed }
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .wantRead
                default: return .closed
                }
            }
        }
    }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> TransportResult {
        switch self {
        case .tls(let session):
            return session.write(bytes)
        case .plain:
            while true {
                let count = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                if count > 0 { return .transferred(count) }
                if count < 0 && errno == EINTR { continue }
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .wantWrite }
                return .failed("write failed")
            }
        }
    }

    /// Input already taken from the socket and not yet returned by `read`.
    var hasBufferedInput: Bool {
        if case .tls(let session) = self { return session.hasBufferedInput }
        return false
    }

    /// A TLS session whose handshake has not finished.
    var isHandshaking: Bool {
        if case .tls(let session) = self { return !session.isEstablished }
        return false
    }

    /// Ends the session cleanly before the socket's write side is shut (TLS close_notify).
    func closeOutput() {
        if case .tls(let session) = self { session.sendCloseNotify() }
    }
}

/// The outcome of one read or write.
enum TransportResult {
    case transferred(Int)
    /// Nothing more until the socket is readable (also a TLS write that needs the peer's next record).
    case wantRead
    /// Nothing more until the socket is writable (also a TLS read that must send first).
    case wantWrite
    /// The peer closed or the connection broke.
    case closed
    /// A protocol or socket error, with a reason for the debug log.
    case failed(String)
    /// The TLS port received something that is not a TLS handshake (plain HTTP).
    case notTLS
}
