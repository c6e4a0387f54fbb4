@testable import HTTP
import HTTPTypes
import Testing

@Suite("RequestParser behaviour")
struct ParserBehaviourTests {
    @Test func deadAfterAnError() throws {
        var parser = RequestParser()
        var events: [RequestParser.Event] = []
        let first = #expect(throws: RequestParseError.self) {
            try parser.parse(Array("GET / HTTP/1.1\r\nHost : x\r\n\r\n".utf8)) { events.append($0) }
        }
        #expect(parser.phase == .failed)
        #expect(!parser.isMidRequest)
        let second = #expect(throws: RequestParseError.self) {
            try parser.parse(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) { events.append($0) }
        }
        #expect(first == second)
        #expect(first?.status == .badRequest)
        #expect(first?.reason == "whitespace between field name and colon")
        #expect(events.isEmpty)
    }

    @Test func phasesFollowTheRequest() throws {
        var parser = RequestParser()
        var events: [RequestParser.Event] = []
        func feed(_ text: String) throws { try parser.parse(Array(text.utf8)) { events.append($0) } }

        #expect(parser.phase == .idle && !parser.isMidRequest)
        try feed("\r\n")
        #expect(parser.phase == .idle)
        try feed("PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n")
        #expect(parser.phase == .head && parser.isMidRequest)
        try feed("Content-Length: 4\r\n\r\n")
        // The head is out before any body byte: the connection answers 100 Continue now.
        #expect(parser.phase == .body && parser.isMidRequest)
        guard case .head(let head)? = events.last else {
            Issue.record("no head: \(events)")
            return
        }
        #expect(head.expectContinue)
        #expect(head.framing == .contentLength(4))
        try feed("ab")
        #expect(parser.phase == .body)
        try feed("cd")
        #expect(parser.phase == .idle && !parser.isMidRequest)
        #expect(events.count == 4)
        #expect(events.last == .end)
    }

    @Test func closedParserIgnoresFurtherBytes() throws {
        var parser = RequestParser()
        var count = 0
        try parser.parse(Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)) { _ in count += 1 }
        #expect(parser.phase == .closed)
        try parser.parse(Array("garbage \u{0}\r\n".utf8)) { _ in count += 1 }
        #expect(count == 2)
        #expect(parser.phase == .closed)
    }

    @Test func emptyBufferIsANoOp() throws {
        var parser = RequestParser()
        try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0)) { _ in Issue.record("event") }
        try parser.parse([]) { _ in Issue.record("event") }
        #expect(parser.phase == .idle)
    }

    @Test func rawObsTextValueIsKeptByteForByte() throws {
        var parser = RequestParser()
        var heads: [RequestHead] = []
        try parser.parse(Array("GET / HTTP/1.1\r\nHost: x\r\nX-Raw: a".utf8) + [0xFF, 0x80] + Array("b\r\n\r\n".utf8)) {
            if case .head(let head) = $0 { heads.append(head) }
        }
        let field = try #require(heads.first?.request.headerFields.first)
        let bytes = field.withUnsafeBytesOfValue { Array($0) }
        #expect(bytes == Array("a".utf8) + [0xFF, 0x80] + Array("b".utf8))
    }

    @Test func everyErrorHasAReason() {
        for row in parserTable where row.status != nil {
            let outcome = ParseOutcome(row.input, limits: row.limits, cuts: [])
            #expect(outcome.error?.reason.isEmpty == false, "\(row.name)")
        }
    }

    /// All keep-alive rows of the table back to back on one connection, fed whole and in
    /// uneven pieces, give the same requests as the rows did one by one.
    @Test func tableRowsPipelinedOnOneConnection() {
        let rows = parserTable.filter { row in
            guard row.status == nil, row.limits == ParserLimits() else { return false }
            let alone = ParseOutcome(row.input, limits: row.limits, cuts: [])
            return alone.phase == .idle && !alone.requests.isEmpty
        }
        #expect(rows.count >= 20)
        let input = rows.flatMap(\.input)
        let expected = rows.flatMap { ParseOutcome($0.input, limits: $0.limits, cuts: []).requests }
        let whole = ParseOutcome(input, limits: ParserLimits(), cuts: [])
        #expect(whole.requests == expected)
        #expect(whole.error == nil)
        for step in [1, 2, 3, 7, 64, 1000] {
            let cuts = Array(stride(from: step, to: input.count, by: step))
            #expect(ParseOutcome(input, limits: ParserLimits(), cuts: cuts) == whole, "pieces of \(step)")
        }
    }
}

/// The documented default limits, reached with real sizes (fed whole, in 1000-byte pieces and
/// in two halves around the critical byte).
@Suite("RequestParser default limits")
struct ParserDefaultLimitTests {
    static let limits = ParserLimits()

    func outcomes(_ input: [UInt8]) -> [ParseOutcome] {
        [
            ParseOutcome(input, limits: Self.limits, cuts: []),
            ParseOutcome(input, limits: Self.limits, cuts: Array(stride(from: 1000, to: input.count, by: 1000))),
            ParseOutcome(input, limits: Self.limits, cuts: [input.count / 2]),
        ]
    }

    func status(_ text: String) -> Int? {
        let results = outcomes(Array(text.utf8))
        #expect(Set(results).count == 1, "split-dependent")
        return results[0].error?.status.code
    }

    @Test func defaultsAreTheDocumentedValues() {
        #expect(Self.limits.maxRequestLineLength == 8192)
        #expect(Self.limits.maxHeaderSectionLength == 32768)
        #expect(Self.limits.maxHeaderFieldCount == 100)
        #expect(Self.limits.maxBodyLength == 1_048_576)
        #expect(Self.limits.maxChunkLineLength == 4096)
        #expect(Self.limits.maxChunkExtensionsLength == 16384)
    }

    @Test func requestLine() {
        // "GET " + path + " HTTP/1.1\r\n" is path.count + 15 bytes.
        let fits = "/" + String(repeating: "a", count: 8192 - 15 - 1)
        #expect(status("GET \(fits) HTTP/1.1\r\nHost: x\r\n\r\n") == nil)
        #expect(status("GET \(fits)a HTTP/1.1\r\nHost: x\r\n\r\n") == 414)
        #expect(status("GET \(fits)" + String(repeating: "a", count: 30)) == 414)  // no LF yet
    }

    @Test func headerSection() {
        // "Host: x\r\n" (9) + "A: " + value + "\r\n" + "\r\n" = value.count + 16.
        let fits = String(repeating: "v", count: 32768 - 16)
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\nA: \(fits)\r\n\r\n") == nil)
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\nA: \(fits)v\r\n\r\n") == 431)
    }

    @Test func fieldCount() {
        let fields = (1..<100).map { "F\($0): v\r\n" }.joined()
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\n\(fields)\r\n") == nil)
        #expect(status("GET / HTTP/1.1\r\nHost: x\r\n\(fields)G: v\r\n\r\n") == 431)
    }

    @Test func contentLength() {
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n") == nil)
        #expect(status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n") == 413)
    }

    @Test func chunkedTotal() {
        let head = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = "10000\r\n" + String(repeating: "z", count: 0x10000) + "\r\n"  // 64 KiB
        let sixteen = String(repeating: chunk, count: 16)  // exactly 1 MiB
        let ok = outcomes(Array((head + sixteen + "0\r\n\r\n").utf8))
        #expect(ok[0].error == nil && ok[0].requests.first?.body.count == 1_048_576 && ok[0].requests.first?.complete == true)
        #expect(Set(ok).count == 1)
        #expect(status(head + sixteen + "1\r\n") == 413)
    }

    @Test func chunkLine() {
        let head = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        let fits = "1;" + String(repeating: "e", count: 4096 - 4)
        #expect(status(head + fits + "\r\nz\r\n0\r\n\r\n") == nil)
        #expect(status(head + fits + "e\r\nz\r\n0\r\n\r\n") == 400)
    }

    @Test func chunkExtensionsTotal() {
        let head = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = "1;" + String(repeating: "e", count: 1023) + "\r\nz\r\n"  // 1 KiB of extension each
        #expect(status(head + String(repeating: chunk, count: 16) + "0\r\n\r\n") == nil)
        #expect(status(head + String(repeating: chunk, count: 16) + "1;e\r\nz\r\n0\r\n\r\n") == 400)
    }
}
