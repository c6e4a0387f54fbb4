import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A strict, incremental HTTP/1.1 request parser (RFC 9112) for one connection.
///
/// Feed it bytes as they arrive with `parse(_:onEvent:)`; it reports each request as
/// `.head`, zero or more `.body` and `.end`, and keeps going with the next pipelined request
/// in the same buffer. The events (with consecutive `.body` bytes joined) and any error are
/// the same however the bytes are split across calls; only the sizes of `.body` pieces vary.
///
/// The first malformed byte or exceeded limit throws a ``RequestParseError`` carrying the
/// status to answer; the events before it were already delivered (answer those requests
/// first), and the parser is dead afterwards: every later call throws the same error.
///
/// After a request that is not ``RequestHead/keepAlive`` ends, the parser is ``Phase/closed``
/// and ignores further bytes: RFC 9112 §9.6 forbids processing requests after `close`.
///
/// Leading empty lines (CRLF) before a request line are skipped (RFC 9112 §2.2).
/// Line endings must be CRLF: a bare LF or a bare CR anywhere in the head is rejected (400)
/// rather than tolerated, the strict choice §2.2 allows. Trailer fields of chunked bodies are
/// validated (same rules and limits as header fields) and dropped.
///
/// Choices where the RFCs leave room:
/// - CONNECT (authority-form only) parses, with `keepAlive` false; the server answers it
///   (405/501) and closes, since it does not tunnel. Asterisk-form only with OPTIONS.
/// - Absolute-form only for `http` and `https`, without userinfo; its authority replaces
///   Host, which HTTP/1.1 still requires (RFC 9112 §3.2).
/// - Origin-form paths must be RFC 3986 characters with valid percent-encoding; queries
///   also accept the other visible ASCII that browsers leave unencoded (`{|}` and such).
/// - Expectations other than `100-continue` are ignored (RFC 9110 §10.1.1 allows 417).
///
/// Driving it from a connection:
/// ```swift
/// var parser = RequestParser(limits: configuration.limits)
/// // for each read:
/// do {
///     try parser.parse(bytesRead) { event in
///         switch event {
///         case .head(let head): // start an exchange; if head.expectContinue, queue "100 Continue"
///         case .body(let bytes): // append to the current exchange's body
///         case .end: // dispatch it; if !head.keepAlive, close after answering it
///         }
///     }
/// } catch {
///     // answer the earlier requests, then error.status with error.reason, and close
/// }
/// // pick the timeout from parser.phase: .idle keep-alive, .head header (408), .body body
/// ```
struct RequestParser: Sendable {
    /// What the parser found in the bytes fed so far.
    enum Event: Sendable, Hashable {
        /// A complete request head. Body events (if ``RequestHead/framing`` has a body) and `.end` follow.
        case head(RequestHead)
        /// The next piece of the decoded body (chunk framing removed). Never empty.
        case body([UInt8])
        /// The request is complete; a pipelined one may follow.
        case end
    }

    /// Where the parser stands, so the connection can pick the right timeout.
    enum Phase: Sendable, Hashable {
        /// Between requests, nothing of the next one received yet (idle keep-alive timeout).
        case idle
        /// Part of a request head received (header read timeout, 408 on expiry).
        case head
        /// Head delivered, body not finished (body read timeout).
        case body
        /// The last request was not keep-alive and has ended; further bytes are ignored.
        case closed
        /// A ``RequestParseError`` was thrown; the parser accepts nothing more.
        case failed
    }

    /// The limits this parser enforces.
    let limits: ParserLimits

    var state: State = .idle
    /// The incomplete line carried over from the previous buffer (head, chunk-size or trailer line).
    var carry: [UInt8] = []
    var pending = PendingHead()
    /// Bytes of the current header or trailer section so far, and its field lines.
    var sectionLength = 0
    var fieldCount = 0
    /// Sum of chunk sizes of the current chunked body.
    var chunkedTotal = 0
    /// The body limit of the chunked request being read (``ParserLimits/largerBodies`` may raise it).
    var chunkedLimit = 0
    /// Sum of chunk-extension bytes of the current chunked body.
    var chunkExtensionsLength = 0
    /// The keep-alive decision of the request whose body is being read.
    var keepAliveAfterBody = true

    enum State: Sendable {
        case idle
        case fields
        case contentBody(remaining: Int)
        case chunkLine
        case chunkData(remaining: Int)
        case chunkDataCR
        case chunkDataLF
        case trailers
        case closed
        case failed(RequestParseError)
    }

    /// The largest carry buffer kept between lines (bytes).
    static let retainedCarryCapacity = 1024

    /// Creates a parser for a new connection.
    init(limits: ParserLimits = ParserLimits()) {
        self.limits = limits
    }

    /// Where the parser stands; see ``Phase``.
    var phase: Phase {
        switch state {
        case .idle: carry.isEmpty ? .idle : .head
        case .fields: .head
        case .contentBody, .chunkLine, .chunkData, .chunkDataCR, .chunkDataLF, .trailers: .body
        case .closed: .closed
        case .failed: .failed
        }
    }

    /// True while a request has started but not ended (its head or body is incomplete).
    var isMidRequest: Bool {
        switch phase {
        case .head, .body: true
        case .idle, .closed, .failed: false
        }
    }

    /// Parses `bytes`, reporting every complete piece to `onEvent` in order.
    ///
    /// Bytes are copied only when needed: a line split across calls is carried over, and
    /// body bytes are handed out as new arrays.
    /// - Throws: ``RequestParseError`` for malformed input or an exceeded limit; the events
    ///   before the error have been delivered. Every later call throws the same error.
    mutating func parse(_ bytes: UnsafeRawBufferPointer, onEvent: (Event) -> Void) throws(RequestParseError) {
        if case .failed(let error) = state { throw error }
        do {
            try consume(bytes, onEvent)
        } catch {
            state = .failed(error)
            carry = []
            pending = PendingHead()
            throw error
        }
    }

    /// Convenience for byte arrays; see ``parse(_:onEvent:)-(UnsafeRawBufferPointer,_)``.
    mutating func parse(_ bytes: [UInt8], onEvent: (Event) -> Void) throws(RequestParseError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RequestParseError) in try parse(raw, onEvent: onEvent) }
        }
        try result.get()
    }

    private mutating func consume(_ buffer: UnsafeRawBufferPointer, _ emit: (Event) -> Void) throws(RequestParseError) {
        guard let base = buffer.baseAddress else { return }
        let end = buffer.count
        var index = 0
        while index < end {
            switch state {
            case .idle, .fields, .chunkLine, .trailers:
                let available = end - index
                guard let found = memchr(base + index, Int32(ASCII.lf), available) else {
                    carry.append(contentsOf: UnsafeRawBufferPointer(start: base + index, count: available))
                    if case .idle = state { try checkRequestLineStart(carry[0]) }
                    try checkLength(ofIncompleteLine: carry.count)
                    return
                }
                let lineEnd = base.distance(to: UnsafeRawPointer(found))
                let piece = UnsafeRawBufferPointer(start: base + index, count: lineEnd - index)
                if carry.isEmpty {
                    try processLine(piece, emit)
                } else {
                    carry.append(contentsOf: piece)
                    var line: [UInt8] = []
                    swap(&line, &carry)
                    let result = line.withUnsafeBytes { raw in
                        Result { () throws(RequestParseError) in try processLine(raw, emit) }
                    }
                    // Keep a small buffer for the next split line, but do not pin a long one's memory.
                    if line.capacity <= Self.retainedCarryCapacity {
                        line.removeAll(keepingCapacity: true)
                        carry = line
                    }
                    try result.get()
                }
                index = lineEnd + 1

            case .contentBody(let remaining):
                let count = min(remaining, end - index)
                emit(.body(Array(UnsafeRawBufferPointer(start: base + index, count: count))))
                index += count
                if count == remaining {
                    finishRequest(emit)
                } else {
                    state = .contentBody(remaining: remaining - count)
                }

            case .chunkData(let remaining):
                let count = min(remaining, end - index)
                emit(.body(Array(UnsafeRawBufferPointer(start: base + index, count: count))))
                index += count
                state = count == remaining ? .chunkDataCR : .chunkData(remaining: remaining - count)

            case .chunkDataCR:
                guard buffer[index] == ASCII.cr else { throw .badRequest("chunk data not followed by CRLF") }
                state = .chunkDataLF
                index += 1

            case .chunkDataLF:
                guard buffer[index] == ASCII.lf else { throw .badRequest("bare CR after chunk data") }
                state = .chunkLine
                index += 1

            case .closed:
                return

            case .failed(let error):
                throw error
            }
        }
    }

    /// A request line starts with a method, an empty line with CR: anything else (a TLS
    /// handshake, binary junk) is rejected at its first byte instead of after 8 KiB or a
    /// timeout. Checked before the length, on whole and partial lines alike, so the result
    /// does not depend on the split.
    private func checkRequestLineStart(_ first: UInt8) throws(RequestParseError) {
        guard ASCII.isTokenChar(first) || first == ASCII.cr else {
            throw .badRequest("request does not start with a method")
        }
    }

    /// The limit check for a line still missing its LF; it fails exactly when the complete
    /// line would, whatever the split, because the complete line is at least as long.
    private func checkLength(ofIncompleteLine length: Int) throws(RequestParseError) {
        try checkLength(ofLine: length)
    }

    /// `length` counts the line's bytes before its LF (so including its CR, if any).
    private func checkLength(ofLine length: Int) throws(RequestParseError) {
        let withLF = length + 1
        switch state {
        case .idle:
            if withLF > limits.maxRequestLineLength {
                throw RequestParseError(status: .uriTooLong, reason: "request line longer than \(limits.maxRequestLineLength) bytes")
            }
        case .fields, .trailers:
            if sectionLength + withLF > limits.maxHeaderSectionLength {
                throw RequestParseError(
                    status: .requestHeaderFieldsTooLarge,
                    reason: "\(isTrailer ? "trailer" : "header") section longer than \(limits.maxHeaderSectionLength) bytes"
                )
            }
        case .chunkLine:
            if withLF > limits.maxChunkLineLength {
                throw .badRequest("chunk-size line longer than \(limits.maxChunkLineLength) bytes")
            }
        default:
            break
        }
    }

    private var isTrailer: Bool {
        if case .trailers = state { return true }
        return false
    }

    /// Handles one complete line, given without its LF.
    private mutating func processLine(_ line: UnsafeRawBufferPointer, _ emit: (Event) -> Void) throws(RequestParseError) {
        if case .idle = state, let first = line.first { try checkRequestLineStart(first) }
        try checkLength(ofLine: line.count)
        guard let last = line.last, last == ASCII.cr else {
            throw .badRequest("line ends with a bare LF; CRLF required")
        }
        let content = UnsafeRawBufferPointer(rebasing: line.dropLast())
        if let base = content.baseAddress, memchr(base, Int32(ASCII.cr), content.count) != nil {
            throw .badRequest("bare CR in line")
        }
        switch state {
        case .idle:
            if content.isEmpty { return }  // RFC 9112 §2.2: ignore empty lines before a request line
            pending = try PendingHead(requestLine: content)
            sectionLength = 0
            fieldCount = 0
            state = .fields

        case .fields:
            sectionLength += line.count + 1
            if content.isEmpty {
                try finishHead(emit)
            } else {
                try countField()
                try pending.addField(FieldLine(content))
            }

        case .trailers:
            sectionLength += line.count + 1
            if content.isEmpty {
                finishRequest(emit)
            } else {
                try countField()
                _ = try FieldLine(content)
            }

        case .chunkLine:
            let (size, extensionLength) = try ChunkLine.parse(content)
            chunkExtensionsLength += extensionLength
            if chunkExtensionsLength > limits.maxChunkExtensionsLength {
                // RFC 9112 §7.1.1: limit the total, or a body of 1-byte chunks carries megabytes of extensions.
                throw .badRequest("chunk extensions longer than \(limits.maxChunkExtensionsLength) bytes in all")
            }
            if size == 0 {
                sectionLength = 0
                fieldCount = 0
                state = .trailers
                return
            }
            let (total, overflow) = chunkedTotal.addingReportingOverflow(size)
            if overflow || total > chunkedLimit {
                throw RequestParseError(status: .contentTooLarge, reason: "chunked body larger than \(chunkedLimit) bytes")
            }
            chunkedTotal = total
            state = .chunkData(remaining: size)

        default:
            preconditionFailure("processLine in a non-line state")
        }
    }

    private mutating func countField() throws(RequestParseError) {
        fieldCount += 1
        if fieldCount > limits.maxHeaderFieldCount {
            throw RequestParseError(
                status: .requestHeaderFieldsTooLarge,
                reason: "more than \(limits.maxHeaderFieldCount) \(isTrailer ? "trailer" : "header") fields"
            )
        }
    }

    private mutating func finishHead(_ emit: (Event) -> Void) throws(RequestParseError) {
        let head = try pending.finish(limits: limits)
        pending = PendingHead()
        emit(.head(head))
        switch head.framing {
        case .none, .contentLength(0):
            finishRequest(emit, keepAlive: head.keepAlive)
        case .contentLength(let length):
            state = .contentBody(remaining: length)
            keepAliveAfterBody = head.keepAlive
        case .chunked:
            chunkedTotal = 0
            chunkedLimit = limits.maxBodyLength(method: head.request.method.rawValue, path: head.request.path)
            chunkExtensionsLength = 0
            state = .chunkLine
            keepAliveAfterBody = head.keepAlive
        }
    }

    private mutating func finishRequest(_ emit: (Event) -> Void, keepAlive: Bool? = nil) {
        emit(.end)
        state = (keepAlive ?? keepAliveAfterBody) ? .idle : .closed
    }
}
