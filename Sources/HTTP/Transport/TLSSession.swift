import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The TLS session of one connection, over its non-blocking socket.
///
/// Confined to the connection's worker queue. The handshake happens inside
/// the first reads (OpenSSL's accept state): each call does what the socket
/// allows and says whether it waits for the socket to become readable or
/// writable, so a slow handshake never holds the worker.
final class TLSSession {
    private let ssl: OpaquePointer
    private let fd: Int32
    /// Whether the client's first byte was looked at (a TLS handshake record starts with 0x16).
    private var firstByteChecked = false
    /// After a fatal error OpenSSL forbids SSL_shutdown.
    private var failed = false
    private var closeNotifySent = false

    /// Socket BIO methods that send with MSG_NOSIGNAL (OpenSSL's own use
    /// write(2), which raises SIGPIPE on a vanished peer). Made once, never freed.
    nonisolated(unsafe) static let socketMethod = sb_bio_method_new()

    init?(context: TLSContext, fd: Int32) {
        guard let method = Self.socketMethod, let ssl = SSL_new(context.context) else { return nil }
        guard sb_SSL_set_socket(ssl, fd, method) == 1 else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.fd = fd
    }

    deinit { SSL_free(ssl) }

    /// The handshake is complete.
    var isEstablished: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Bytes read from the socket that OpenSSL holds and the socket's
    /// readiness will not announce again.
    var hasBufferedInput: Bool { SSL_has_pending(ssl) == 1 }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        if let early = checkFirstByte() { return early }
        ERR_clear_error()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        return count > 0 ? .transferred(Int(count)) : outcome(of: count)
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> TransportResult {
        // A write before the first read (a 503 over the connection limit) would let OpenSSL
        // take the ClientHello off the socket; the next read would then peek at a later
        // record and take it for plain HTTP. So the write checks first too.
        if let early = checkFirstByte() { return early }
        ERR_clear_error()
        // Partial writes are on: a large buffer is written record by record until the socket is full.
        let count = SSL_write(ssl, bytes.baseAddress, Int32(clamping: min(bytes.count, 1 << 20)))
        return count > 0 ? .transferred(Int(count)) : outcome(of: count)
    }

    /// Until the client's first byte has been seen: nil once it starts a TLS record,
    /// `.notTLS` for plain HTTP, or what to wait for.
    private func checkFirstByte() -> TransportResult? {
        if firstByteChecked { return nil }
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK))
        if count == 0 { return .closed }
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .wantRead : .closed }
        // Go's net/http does the same: plain HTTP on a TLS port gets a plain answer.
        guard byte == 0x16 else { return .notTLS }
        firstByteChecked = true
        return nil
    }

    /// Sends close_notify once, best effort (the socket may be full or gone).
    func sendCloseNotify() {
        guard !failed, !closeNotifySent, isEstablished else { return }
        closeNotifySent = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    private func outcome(of result: Int32) -> TransportResult {
        let error = SSL_get_error(ssl, result)
        switch error {
        case SSL_ERROR_WANT_READ:
            return .wantRead
        case SSL_ERROR_WANT_WRITE:
            return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            // The peer's close_notify.
            return .closed
        case SSL_ERROR_SYSCALL:
            // The socket failed or the peer vanished (reset, EOF without close_notify).
            failed = true
            ERR_clear_error()
            return .closed
        default:
            failed = true
            let code = ERR_peek_error()
            if ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING {
                ERR_clear_error()
                return .closed
            }
            return .failed("TLS: \(TLSContext.openSSLReason())")
        }
    }
}
