import Base

/// A connection's bytes on their way to the socket: what was handed over and not yet taken,
/// and the writes that move it, in order, until the socket would block.
///
/// One per connection, touched only on the worker's queue. It knows the transport it writes
/// through, not the connection: it reports what happened and the connection decides (close,
/// resume a read, drop the client).
///
/// A class, not a value inside the connection: Swift checks exclusive access to a class's
/// stored property at run time once any access to it spans a call it cannot see into, and a
/// write runs the socket's `send` (or OpenSSL) while the queue is being read. As a value field
/// of the connection, every access to any of its fields was checked (the first cut, with the
/// clock and the input flags made values the same way: about 800 instructions more per
/// keep-alive `/healthz` request, callgrind); as a class, its fields are checked one by one,
/// as when they were the connection's own.
final class ResponseWriter {
    /// What a write of the queue came to.
    enum Outcome {
        /// Everything queued is written.
        case done
        /// The socket is full: the rest goes when it is writable again.
        case socketFull
        /// TLS needs the peer's next record before it can write (the read brings it).
        case waitsForRead
        /// The connection broke.
        case failed
    }

    /// Bytes handed over and not yet taken: `pending[offset...]`.
    private var pending: [UInt8] = []
    private var offset = 0
    /// The last write stopped because the socket was full.
    private(set) var isBlocked = false
    /// The last write stopped because TLS needs the peer's next record.
    private(set) var waitsForRead = false
    /// When the socket last took bytes, or writing began: the write timeout runs from here.
    private var lastProgress: UInt64 = 0
    /// The connection closes once everything queued is written.
    var closeWhenWritten = false

    /// Nothing is waiting to be written.
    var isEmpty: Bool { offset >= pending.count }

    /// Bytes waiting to be written.
    var queuedCount: Int { pending.count - offset }

    /// Whether the socket has taken nothing of what waits for `limit` until `now`.
    func writeTimedOut(now: UInt64, limit: Duration) -> Bool {
        offset < pending.count && now &- lastProgress >= limit.nanoseconds
    }

    /// Queues `output` behind what waits, emptying it; when nothing waits, takes its buffer
    /// instead of copying it.
    func enqueue(_ output: inout [UInt8]) {
        if pending.isEmpty {
            swap(&pending, &output)
        } else {
            pending += output
            output.removeAll(keepingCapacity: false)
        }
    }

    /// Replaces whatever waits with `bytes` (an answer that is the last thing sent).
    func replace(with bytes: [UInt8]) {
        pending = bytes
        offset = 0
    }

    /// Drops whatever waits (the connection is closing at once).
    func discard() {
        pending = []
    }

    /// Writes what waits until the socket would block.
    func write(through transport: Transport, _ fd: Int32) -> Outcome {
        // The write timeout runs from the moment the socket stopped taking bytes.
        if !isBlocked && !waitsForRead { lastProgress = MonotonicClock.nanoseconds() }
        isBlocked = false
        waitsForRead = false
        while offset < pending.count {
            let start = offset
            let result = pending.withUnsafeBytes { bytes in
                transport.write(fd, UnsafeRawBufferPointer(rebasing: bytes[start...]))
            }
            switch result {
            case .transferred(let count):
                offset += count
                lastProgress = MonotonicClock.nanoseconds()
                continue
            case .wantWrite:
                isBlocked = true
                return .socketFull
            case .wantRead:
                waitsForRead = true
                return .waitsForRead
            case .closed, .failed, .notTLS:
                return .failed
            }
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 64 * 1024)
        offset = 0
        return .done
    }

    /// Writes `bytes` (shared, never modified) when nothing waits before them; only the part
    /// the socket does not take is queued (copied). `.done` when all went, `.socketFull` when
    /// some wait, `.failed` when the connection broke.
    func writeDirectly(_ bytes: [UInt8], through transport: Transport, _ fd: Int32) -> Outcome {
        let result = bytes.withUnsafeBytes { transport.write(fd, $0) }
        lastProgress = MonotonicClock.nanoseconds()
        switch result {
        case .transferred(let count) where count == bytes.count:
            return .done
        case .transferred(let count):
            pending = Array(bytes[count...])
        case .wantWrite, .wantRead:
            pending = bytes  // shares the buffer until the queue is changed
        case .closed, .failed, .notTLS:
            return .failed
        }
        // The socket is full: the rest goes when it is writable again.
        offset = 0
        isBlocked = true
        return .socketFull
    }
}
