// libFuzzer entry point for RequestParser, built by scripts/fuzz-parser (not by SwiftPM).
//
// Each input is parsed whole and again split at a position taken from its first byte and
// byte by byte; the three runs must agree (events with body pieces joined, and the error),
// or the fuzzer stops with a crash. Limits are small so that the limit paths are reached.

import HTTPTypes

@_cdecl("LLVMFuzzerTestOneInput")
public func parserFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = ParserLimits(
        maxRequestLineLength: 256,
        maxHeaderSectionLength: 512,
        maxHeaderFieldCount: 8,
        maxBodyLength: 1024,
        maxChunkLineLength: 64,
        maxChunkExtensionsLength: 128
    )
    let whole = FuzzOutcome(bytes, limits: limits, pieces: [bytes.count])
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % bytes.count
    let halves = FuzzOutcome(bytes, limits: limits, pieces: [split, bytes.count - split])
    let single = FuzzOutcome(bytes, limits: limits, pieces: Array(repeating: 1, count: bytes.count))
    if whole != halves || whole != single {
        fatalError("split-dependent result:\nwhole  \(whole)\nsplit at \(split) \(halves)\nbytes  \(single)")
    }
    return 0
}

/// Everything a run reports, with consecutive body pieces joined.
struct FuzzOutcome: Equatable, CustomStringConvertible {
    var events: [RequestParser.Event] = []
    var error: RequestParseError?
    var phase: RequestParser.Phase

    init(_ bytes: [UInt8], limits: ParserLimits, pieces: [Int]) {
        var parser = RequestParser(limits: limits)
        var events: [RequestParser.Event] = []
        var start = 0
        do {
            for length in pieces {
                try parser.parse(Array(bytes[start..<start + length])) { event in
                    if case .body(let more) = event, case .body(let sofar)? = events.last {
                        events[events.count - 1] = .body(sofar + more)
                    } else {
                        if case .body(let piece) = event, piece.isEmpty { fatalError("empty body event") }
                        events.append(event)
                    }
                }
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
