// libFuzzer entry point for the streaming NDJSON line reader, built by `scripts/fuzz ndjson`
// (not by SwiftPM).
//
// An input's first two bytes give two cut points; the rest is the import, read whole and read
// in the three chunks the cuts make, with a small line limit so that long lines are common.
// The fuzzer stops with a crash when the two readings differ (a chunk boundary changed what was
// read), when line numbers do not increase, when a line holds an LF or is blank or is longer
// than the limit (it may end with a CR: only the CR of a CRLF belongs to the line end), or
// when the lines and errors do not account for the input's lines.

@testable import Search

let maxLineBytes = 32

@_cdecl("LLVMFuzzerTestOneInput")
public func ndjsonFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    let cuts = [Int(data[0]) % (input.count + 1), Int(data[1]) % (input.count + 1)].sorted()

    var whole = NDJSONLineReader(maxLineBytes: maxLineBytes)
    let expected = whole.feed(input) + whole.finish()
    var chunked = NDJSONLineReader(maxLineBytes: maxLineBytes)
    let got = chunked.feed(input[..<cuts[0]]) + chunked.feed(input[cuts[0]..<cuts[1]]) + chunked.feed(input[cuts[1]...]) + chunked.finish()
    if got != expected { fatalError("chunks at \(cuts) read \(got), whole \(expected)") }

    let lineCount = input.split(separator: 0x0A, omittingEmptySubsequences: false).count - (input.last == 0x0A ? 1 : 0)
    var previous = 0
    for result in expected {
        let number: Int
        switch result {
        case .success(let line):
            number = line.number
            if line.bytes.contains(0x0A) { fatalError("a line holds LF: \(line)") }
            if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { fatalError("a blank line: \(line)") }
            if line.bytes.count > maxLineBytes { fatalError("a line over the limit: \(line)") }
        case .failure(let error):
            number = error.line
        }
        if number <= previous || number > lineCount { fatalError("line \(number) after \(previous) of \(lineCount)") }
        previous = number
    }
    return 0
}
