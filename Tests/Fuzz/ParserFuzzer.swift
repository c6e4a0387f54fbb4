// libFuzzer entry point for RequestParser, built by `scripts/fuzz parser` (not by SwiftPM).
//
// Each input is parsed whole and again split at a position taken from its first byte and
// byte by byte; the three runs must agree (events with body pieces joined, and the error),
// or the fuzzer stops with a crash. The event sequence must also make sense: head, body
// pieces that add up to the announced length, end; nothing after an error or after the end
// of a request that is not keep-alive. Inputs whose first byte has its high bit set are
// parsed with the default limits, the others with small limits so that every limit is hit.

import HTTPTypes

@_cdecl("LLVMFuzzerTestOneInput")
public func parserFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = (bytes.first ?? 0) & 0x80 != 0 ? ParserLimits() : smallLimits
    let whole = FuzzOutcome(bytes, limits: limits, pieces: [bytes.count])
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % bytes.count
    let halves = FuzzOutcome(bytes, limits: limits, pieces: [split, bytes.count - split])
    let single = FuzzOutcome(bytes, limits: limits, pieces: Array(repeating: 1, count: bytes.count))
    if whole != halves || whole != single {
        fatalError("split-dependent result:\nwhole  \(whole)\nsplit at \(split) \(halves)\nbytes  \(single)")
    }
    return 0
}

let smallLimits = ParserLimits(
    maxRequestLineLength: 256,
    maxHeaderSectionLength: 512,
    maxHeaderFieldCount: 8,
    maxBodyLength: 1024,
    maxChunkLineLength: 64,
    maxChunkExtensionsLength: 128
)

/// Checks that events arrive in a meaningful order, one at a time.
struct EventOrder {
    var head: RequestHead?
    var bodyLength = 0
    var closed = false

    mutating func check(_ event: RequestParser.Event) {
        if closed { fatalError("event after the end of a non-keep-alive request: \(event)") }
        switch event {
        case .head(let next):
            if head != nil { fatalError("head before the previous request ended") }
            head = next
            bodyLength = 0
        case .body(let bytes):
            guard let head else { fatalError("body without a head") }
            if bytes.isEmpty { fatalError("empty body event") }
            bodyLength += bytes.count
            switch head.framing {
            case .none: fatalError("body for a request without one")
            case .contentLength(let length) where bodyLength > length: fatalError("body longer than Content-Length")
            default: break
            }
        case .end:
            guard let ended = head else { fatalError("end without a head") }
            switch ended.framing {
            case .none where bodyLength != 0: fatalError("body for a request without one")
            case .contentLength(let length) where bodyLength != length: fatalError("body shorter than Content-Length")
            default: break
            }
            if ended.expectContinue, ended.version != .http1_1 { fatalError("100-continue on HTTP/1.0") }
            closed = !ended.keepAlive
            head = nil
        }
    }
}

/// Everything a run reports, with consecutive body pieces joined.
struct FuzzOutcome: Equatable, CustomStringConvertible {
    var events: [RequestParser.Event] = []
    var error: RequestParseError?
    var phase: RequestParser.Phase

    init(_ bytes: [UInt8], limits: ParserLimits, pieces: [Int]) {
        var parser = RequestParser(limits: limits)
        var events: [RequestParser.Event] = []
        var order = EventOrder()
        var start = 0
        do {
            for length in pieces {
                try parser.parse(Array(bytes[start..<start + length])) { event in
                    order.check(event)
                    if case .body(let more) = event, case .body(let sofar)? = events.last {
                        events[events.count - 1] = .body(sofar + more)
                    } else {
                        events.append(event)
                    }
                }
                if parser.phase == .closed, !order.closed { fatalError("closed without a non-keep-alive request") }
                start += length
            }
        } catch {
            self.error = error
            // A dead parser must stay dead.
            do {
                try parser.parse([0x47]) { _ in fatalError("event after an error") }
                fatalError("no error after an error")
            } catch let again {
                if again != error { fatalError("different error after an error") }
            }
        }
        self.events = events
        self.phase = parser.phase
    }

    var description: String { "\(events) \(error.map(String.init(describing:)) ?? "no error") \(phase)" }
}
