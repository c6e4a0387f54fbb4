import Base

/// A request body handed to its handler as it arrives, piece by piece, instead of whole: for the
/// routes a ``LargerBody`` marks `streamed` (a bulk import of hundreds of megabytes is parsed as
/// it comes, never held whole).
///
/// Bounded: once ``maxBufferedBytes`` wait unread, the connection stops reading its socket (TCP
/// then slows the client down) until the handler has read half of them. A handler that answers
/// without reading to the end leaves the rest to be read and dropped, so the connection stays
/// usable for the next request. A body cut short (the client left, a timeout, a framing error)
/// ends the iteration with ``RequestBodyError``.
///
/// One reader: iterate it once.
public final class RequestBodyStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    /// Most bytes that wait unread before the connection stops reading (one socket read more
    /// may land on top). Default 1 MiB.
    public let maxBufferedBytes: Int

    private struct State {
        var pieces: [[UInt8]] = []
        /// Index of the next piece to hand out (the array is compacted when it is all read).
        var next = 0
        var bufferedBytes = 0
        var ended = false
        var failure: RequestBodyError?
        /// The reader waiting for the next piece.
        var waiter: CheckedContinuation<[UInt8]?, any Error>?
        /// Set by the connection while it holds its reads for this body; called (once) when the
        /// reader has made room.
        var resume: (@Sendable () -> Void)?
        /// The handler is done with the body: what still arrives is dropped.
        var abandoned = false
    }

    private let state = Locked(State())

    /// A body that arrives later, through ``append(_:)`` and ``finish()``.
    package init(maxBufferedBytes: Int = 1 << 20) {
        self.maxBufferedBytes = Swift.max(maxBufferedBytes, 1)
    }

    /// A body already whole (an in-process request, or one not streamed): one piece, then the end.
    package convenience init(whole body: [UInt8]) {
        self.init(maxBufferedBytes: Swift.max(body.count, 1))
        if !body.isEmpty { _ = append(body) }
        finish()
    }

    // MARK: The connection's side

    /// Queues bytes that arrived. Returns true when the buffer is full: the caller stops reading
    /// and waits for the closure given to ``holdReads(until:)``.
    package func append(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        let (waiter, full) = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>?, Bool) in
            guard !state.ended, !state.abandoned else { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            state.pieces.append(bytes)
            state.bufferedBytes += bytes.count
            return (nil, state.bufferedBytes >= maxBufferedBytes)
        }
        waiter?.resume(returning: bytes)
        return full
    }

    /// Registers what resumes the connection's reads once the reader has made room. Called right
    /// after ``append(_:)`` answered true; if room was made meanwhile, `resume` runs at once.
    package func holdReads(until resume: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.abandoned || state.ended || state.bufferedBytes < maxBufferedBytes / 2 { return true }
            state.resume = resume
            return false
        }
        if now { resume() }
    }

    /// The body is complete.
    package func finish() {
        end(nil)
    }

    /// The body was cut short.
    package func fail(_ failure: RequestBodyError) {
        end(failure)
    }

    private func end(_ failure: RequestBodyError?) {
        let (waiter, resume) = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>?, (@Sendable () -> Void)?) in
            guard !state.ended else { return (nil, nil) }
            state.ended = true
            state.failure = failure
            let waiter = state.waiter
            state.waiter = nil
            // The connection no longer waits for room: drop its closure (and the cycle through it).
            let resume = state.resume
            state.resume = nil
            return (waiter, resume)
        }
        _ = resume
        if let failure { waiter?.resume(throwing: failure) } else { waiter?.resume(returning: nil) }
    }

    /// Whether the body has ended, whole or cut short.
    package var isEnded: Bool { state.withLock { $0.ended } }

    // MARK: The reader's side

    /// The next piece, or nil at the end of the body; throws ``RequestBodyError`` when the body
    /// was cut short.
    public func next() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { continuation in
            let (outcome, resume) = state.withLock { state -> (Result<[UInt8]?, any Error>?, (@Sendable () -> Void)?) in
                if state.next < state.pieces.count {
                    let piece = state.pieces[state.next]
                    state.pieces[state.next] = []
                    state.next += 1
                    if state.next == state.pieces.count {
                        state.pieces.removeAll(keepingCapacity: true)
                        state.next = 0
                    }
                    state.bufferedBytes -= piece.count
                    var resume: (@Sendable () -> Void)?
                    if state.bufferedBytes < maxBufferedBytes / 2 {
                        resume = state.resume
                        state.resume = nil
                    }
                    return (.success(piece), resume)
                }
                if state.ended {
                    if let failure = state.failure { return (.failure(failure), nil) }
                    return (.success(nil), nil)
                }
                state.waiter = continuation
                // Waiting with nothing buffered: the connection must read on.
                let resume = state.resume
                state.resume = nil
                return (nil, resume)
            }
            resume?()
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Tells the connection that the handler is done with the body: what is buffered is freed
    /// and what still arrives is dropped (the connection still reads it, to find the next request).
    public func abandon() {
        let resume = state.withLock { state -> (@Sendable () -> Void)? in
            state.abandoned = true
            state.pieces = []
            state.next = 0
            state.bufferedBytes = 0
            let resume = state.resume
            state.resume = nil
            return resume
        }
        resume?()
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: RequestBodyStream

        public mutating func next() async throws -> [UInt8]? {
            try await stream.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: self)
    }
}

/// A streamed request body that did not arrive whole.
public enum RequestBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection closed before the body's end.
    case connectionClosed
    /// The server refused the rest of the request (a framing error or a timeout), with the status it answered.
    case refused(status: Int, reason: String)

    public var description: String {
        switch self {
        case .connectionClosed: "The connection closed before the request body's end."
        case .refused(let status, let reason): "The request body was refused (\(status)): \(reason)"
        }
    }
}
