@testable import HTTP
import HTTPTypes
import Testing

/// The request table of issue 3: each row is parsed whole, split in two at every byte
/// boundary and byte by byte, and all runs must report the same outcome.
@Suite("RequestParser table")
struct ParserTableTests {
    @Test(arguments: parserTable)
    func sameOutcomeWhateverTheSplit(_ row: ParserCase) {
        let whole = ParseOutcome(row.input, limits: row.limits, cuts: [])
        if let problem = row.mismatch(whole) {
            Issue.record("\(row.name): \(problem)")
            return
        }
        for cut in 1..<max(row.input.count, 1) {
            let split = ParseOutcome(row.input, limits: row.limits, cuts: [cut])
            if split != whole {
                Issue.record("\(row.name): split at \(cut) gives \(split), whole gives \(whole)")
                return
            }
        }
        let bytewise = ParseOutcome(byteByByte: row.input, limits: row.limits)
        #expect(bytewise == whole, "\(row.name): byte by byte")
    }

    @Test func tableIsLargeEnough() {
        #expect(parserTable.count >= 60)
        #expect(parserTable.filter { $0.status == nil }.count >= 25)
        #expect(parserTable.filter { $0.status != nil }.count >= 35)
    }
}

private let crlf = "\r\n"
/// The smallest valid head for `GET /`.
private let getRoot = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"

private let chunkedPost = ExpectedRequest(method: "POST", path: "/up", framing: .chunked)

/// The chunked upload whose body fails: its head (and body so far) came before the error.
private func uploadCut(_ body: String = "") -> ExpectedRequest {
    var request = chunkedPost
    request.body = body
    request.complete = false
    return request
}

let parserTable: [ParserCase] = [
    // MARK: Valid requests
    .ok("simple GET", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", .init(path: "/healthz", fields: []), phase: .idle),
    .ok("one leading empty line ignored", "\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", .init()),
    .ok("several leading empty lines ignored", "\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", .init()),
    .ok("HEAD", "HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\n", .init(method: "HEAD", path: "/doc")),
    .ok("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", .init(method: "OPTIONS", path: "*")),
    .ok("OPTIONS with a path", "OPTIONS /a HTTP/1.1\r\nHost: x\r\n\r\n", .init(method: "OPTIONS", path: "/a")),
    .ok("extension method", "PURGE /a HTTP/1.1\r\nHost: x\r\n\r\n", .init(method: "PURGE", path: "/a")),
    .ok(
        "absolute-form overrides Host",
        "GET http://example.com:8080/a?b=c HTTP/1.1\r\nHost: other\r\n\r\n",
        .init(scheme: "http", authority: "example.com:8080", path: "/a?b=c")
    ),
    .ok("raw UTF-8 in the query (as curl sends it)", "GET /search?q=москва HTTP/1.1\r\nHost: x\r\n\r\n", .init(path: "/search?q=москва")),
    .ok("raw UTF-8 in the path", "GET /caf\u{E9}/\u{1F600} HTTP/1.1\r\nHost: x\r\n\r\n", .init(path: "/caf\u{E9}/\u{1F600}")),
    .ok("raw UTF-8 in an absolute-form query", "GET http://x/s?q=S\u{E3}o HTTP/1.1\r\nHost: x\r\n\r\n", .init(scheme: "http", authority: "x", path: "/s?q=S\u{E3}o")),
    .ok("absolute-form without path", "GET http://example.com HTTP/1.1\r\nHost: x\r\n\r\n", .init(scheme: "http", authority: "example.com", path: "/")),
    .ok(
        "absolute-form https with query only, scheme in capitals",
        "GET HTTPS://e.com?x=1 HTTP/1.1\r\nHost: x\r\n\r\n",
        .init(scheme: "https", authority: "e.com", path: "/?x=1")
    ),
    .ok(
        "CONNECT authority-form (not keep-alive: no tunnels)",
        "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
        .init(method: "CONNECT", authority: "example.com:443", path: nil, keepAlive: false),
        phase: .closed
    ),
    .ok("HTTP/1.0 without Host closes", "GET / HTTP/1.0\r\n\r\n", .init(authority: nil, version: .http1_0, keepAlive: false), phase: .closed),
    .ok(
        "HTTP/1.0 keep-alive",
        "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
        .init(authority: nil, version: .http1_0, keepAlive: true, fields: ["Connection: Keep-Alive"]),
        phase: .idle
    ),
    .ok(
        "HTTP/1.0 keep-alive, then 1.0 without it, then ignored bytes",
        "GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\n\r\nGET /3 HTTP/1.0\r\n\r\n",
        .init(authority: nil, path: "/1", version: .http1_0, keepAlive: true),
        .init(authority: nil, path: "/2", version: .http1_0, keepAlive: false),
        phase: .closed
    ),
    .ok(
        "HTTP/1.0 keep-alive and close: close wins",
        "GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n",
        .init(authority: nil, version: .http1_0, keepAlive: false)
    ),
    .ok(
        "Connection: close ends the connection, later requests ignored",
        "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n",
        .init(path: "/a", keepAlive: false),
        phase: .closed
    ),
    .ok("Connection list with CLOSE in capitals", "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade ,CLOSE\r\n\r\n", .init(keepAlive: false)),
    .ok(
        "Content-Length body",
        "POST /docs HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        .init(method: "POST", path: "/docs", framing: .contentLength(5), fields: ["Content-Length: 5"], body: "hello")
    ),
    .ok("Content-Length 0", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", .init(method: "POST", framing: .contentLength(0))),
    .ok("Content-Length with leading zeros", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 003\r\n\r\nabc", .init(method: "POST", framing: .contentLength(3), body: "abc")),
    .ok("Content-Length list of equal values", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\n\r\nabc", .init(method: "POST", framing: .contentLength(3), body: "abc")),
    .ok(
        "repeated equal Content-Length lines",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
        .init(method: "POST", framing: .contentLength(3), body: "abc")
    ),
    .ok(
        "three pipelined requests with bodies",
        "POST /1 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nabGET /2 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /3 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n",
        .init(method: "POST", path: "/1", framing: .contentLength(2), body: "ab"),
        .init(path: "/2"),
        .init(method: "POST", path: "/3", framing: .chunked, body: "z"),
        phase: .idle
    ),
    .ok("pipelined with empty line between requests", getRoot + "\r\n" + getRoot, .init(), .init()),
    .ok(
        "chunked",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
        .init(method: "POST", path: "/up", framing: .chunked, fields: ["Transfer-Encoding: chunked"], body: "hello world")
    ),
    .ok(
        "chunked with extensions, capital hex and leading zeros",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "0000A;name=value;flag\r\n0123456789\r\n1 ; q = \"a \\\" b\" ;x\r\n!\r\n0;last\r\n\r\n",
        .init(method: "POST", path: "/up", framing: .chunked, body: "0123456789!")
    ),
    .ok(
        "chunked with trailers (validated, dropped)",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 12\r\nX-Other:\r\n\r\n" + getRoot,
        .init(method: "POST", path: "/up", framing: .chunked, body: "abc"),
        .init()
    ),
    .ok("Transfer-Encoding value in capitals", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n\r\n", chunkedPost),
    .ok(
        "Expect: 100-continue with a body",
        "PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\nabc",
        .init(method: "PUT", path: "/x", expectContinue: true, framing: .contentLength(3), body: "abc")
    ),
    .ok(
        "Expect: 100-continue with chunked body",
        "PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        .init(method: "PUT", path: "/x", expectContinue: true, framing: .chunked)
    ),
    .ok("Expect: 100-continue without a body", "GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n", .init(expectContinue: false)),
    .ok(
        "Expect: 100-continue ignored on HTTP/1.0",
        "PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\na",
        .init(method: "PUT", authority: nil, version: .http1_0, keepAlive: false, framing: .contentLength(1), body: "a")
    ),
    .ok(
        "OWS around values stripped, empty value kept, order kept, Host removed",
        "GET / HTTP/1.1\r\nA: \t one two \t\r\nHost:   x  \r\nB:\r\nc-D:3\r\n\r\n",
        .init(fields: ["A: one two", "B: ", "c-D: 3"])
    ),
    .ok("obs-text in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-Name: caf\u{E9}\r\n\r\n", .init(fields: ["X-Name: caf\u{E9}"])),
    .ok(
        "percent-encoding in path, browser characters in query",
        "GET /a%2Fb/c:d@e;f=g?q={a|b}&r=\"<>\"^`\\ HTTP/1.1\r\nHost: x\r\n\r\n",
        .init(path: "/a%2Fb/c:d@e;f=g?q={a|b}&r=\"<>\"^`\\")
    ),
    .ok("empty Host on HTTP/1.1", "GET / HTTP/1.1\r\nHost:\r\n\r\n", .init(authority: "")),
    .ok("IPv6 Host with port", "GET / HTTP/1.1\r\nhost: [::1]:8080\r\n\r\n", .init(authority: "[::1]:8080")),
    .ok(
        "head complete, body incomplete",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
        .init(method: "POST", framing: .contentLength(10), body: "abc", complete: false),
        phase: .body
    ),
    .ok("head incomplete", "GET / HTTP/1.1\r\nHost: x\r\n", phase: .head),
    .ok("only empty lines", "\r\n\r\n", phase: .idle),
    .ok(
        "chunked body incomplete after chunk data",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
        .init(method: "POST", path: "/up", framing: .chunked, body: "abc", complete: false),
        phase: .body
    ),
    .ok("request line exactly at the limit", "GET /abcdefghijklmnop HTTP/1.1\r\nHost: x\r\n\r\n", .init(path: "/abcdefghijklmnop"), limits: smallLimits),
    .ok(
        "header fields exactly at the count limit",
        "GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n",
        .init(fields: ["A: 1", "B: 2"]),
        limits: smallLimits
    ),
    .ok(
        "body exactly at the limit",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n0123456789abcdef",
        .init(method: "POST", framing: .contentLength(16), body: "0123456789abcdef"),
        limits: smallLimits
    ),
    .ok(
        "chunked body exactly at the limit",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n8\r\n89abcdef\r\n0\r\n\r\n",
        .init(method: "POST", path: "/up", framing: .chunked, body: "0123456789abcdef"),
        limits: smallLimits
    ),

    // MARK: Request line errors
    .fails("bare LF ending the request line", "GET / HTTP/1.1\nHost: x\r\n\r\n", 400),
    .fails("bare LF as a leading empty line", "\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("bare CR in the request line", "GET /\ra HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("two spaces after the method", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("leading space", " GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("tab as separator", "GET\t/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("missing version", "GET /\r\nHost: x\r\n\r\n", 400),
    .fails("space after the version", "GET / HTTP/1.1 \r\nHost: x\r\n\r\n", 400),
    .fails("invalid method character", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    .fails("HTTP/1.2", "GET / HTTP/1.2\r\nHost: x\r\n\r\n", 505),
    .fails("HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", 505),
    .fails("lowercase http version", "GET / http/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("HTTP/1.10", "GET / HTTP/1.10\r\nHost: x\r\n\r\n", 400),
    .fails("asterisk-form with GET", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("CONNECT with origin-form", "CONNECT / HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("CONNECT without port", "CONNECT example.com HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("NBSP (raw UTF-8) is not whitespace in the target", "GET /a\u{A0}b\u{1} HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("relative target", "GET a/b HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("unsupported scheme", "GET ftp://example.com/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("userinfo in absolute-form", "GET http://user@example.com/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("empty host in absolute-form", "GET http:///a HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("fragment in target", "GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("bad percent-encoding", "GET /a%2 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("brace in path", "GET /{a} HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .fails("control character in target", "GET /a\u{1}b HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    .failsBytes("Latin-1 byte in target (not UTF-8)", Array("GET /caf".utf8) + [0xE9] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
    .failsBytes("truncated UTF-8 in query", Array("GET /search?q=".utf8) + [0xD0] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
    .failsBytes("lone continuation byte in query", Array("GET /search?q=a".utf8) + [0x80] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
    .failsBytes("overlong UTF-8 slash", Array("GET /a".utf8) + [0xC0, 0xAF] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
    .failsBytes("UTF-8 surrogate", Array("GET /search?q=".utf8) + [0xED, 0xA0, 0x80] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
    .failsBytes("UTF-8 above U+10FFFF", Array("GET /search?q=".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
    .failsBytes("UTF-8 lead byte then space", Array("GET /search?q=".utf8) + [0xE2, 0x82] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),

    // MARK: Header field errors
    .fails("bare LF ending a field line", "GET / HTTP/1.1\r\nHost: x\n\r\n", 400),
    .fails("bare CR in a value", "GET / HTTP/1.1\r\nHost: x\r\nA: b\rc\r\n\r\n", 400),
    .fails("NUL in a value", "GET / HTTP/1.1\r\nHost: x\r\nA: b\u{0}c\r\n\r\n", 400),
    .fails("control character in a value", "GET / HTTP/1.1\r\nHost: x\r\nA: b\u{1B}c\r\n\r\n", 400),
    .fails("DEL in a value", "GET / HTTP/1.1\r\nHost: x\r\nA: b\u{7F}c\r\n\r\n", 400),
    .fails("whitespace between name and colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400),
    .fails("tab between name and colon", "GET / HTTP/1.1\r\nHost: x\r\nA\t: b\r\n\r\n", 400),
    .fails("obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n", 400),
    .fails("whitespace line after the request line", "GET / HTTP/1.1\r\n Host: x\r\n\r\n", 400),
    .fails("invalid character in a name", "GET / HTTP/1.1\r\nHost: x\r\nA(b: c\r\n\r\n", 400),
    .fails("non-ASCII in a name", "GET / HTTP/1.1\r\nHost: x\r\nCaf\u{E9}: c\r\n\r\n", 400),
    .fails("empty name", "GET / HTTP/1.1\r\nHost: x\r\n: c\r\n\r\n", 400),
    .fails("line without colon", "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400),

    // MARK: Host
    .fails("HTTP/1.1 without Host", "GET / HTTP/1.1\r\nA: b\r\n\r\n", 400),
    .fails("absolute-form still needs Host on 1.1", "GET http://e.com/ HTTP/1.1\r\n\r\n", 400),
    .fails("two Host lines", "GET / HTTP/1.1\r\nHost: x\r\nhost: x\r\n\r\n", 400),
    .fails("two Host lines on HTTP/1.0", "GET / HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n", 400),
    .fails("Host with a space inside", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
    .fails("Host with userinfo", "GET / HTTP/1.1\r\nHost: u@x\r\n\r\n", 400),
    .fails("Host list", "GET / HTTP/1.1\r\nHost: x, y\r\n\r\n", 400),
    .fails("Host with non-numeric port", "GET / HTTP/1.1\r\nHost: x:8o\r\n\r\n", 400),

    // MARK: Framing
    .fails("Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    .fails("differing Content-Length lines", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
    .fails("Content-Length list of differing values", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 4\r\n\r\nabcd", 400),
    .fails("Content-Length not a number", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3a\r\n\r\n", 400),
    .fails("negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
    .fails("Content-Length with plus sign", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\n", 400),
    .fails("empty Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", 400),
    .fails("overflowing Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
    .fails("Content-Length over the body limit (from the head)", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n", 413),
    .fails("Transfer-Encoding gzip", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    .fails("Transfer-Encoding gzip, chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
    .fails("Transfer-Encoding over two lines, gzip then chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
    .fails("chunked not final", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
    .fails("chunked twice", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    .fails("chunked with a parameter", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked;q=1\r\n\r\n", 400),
    .fails("empty Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \r\n\r\n", 400),
    .fails("Transfer-Encoding on HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),

    // MARK: Chunked body errors
    .fails("chunk size not hex", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nz\r\n", 400, after: [uploadCut()]),
    .fails("empty chunk-size line", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", 400, after: [uploadCut()]),
    .fails("chunk size with 0x prefix", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", 400, after: [uploadCut()]),
    .fails(
        "chunk size overflowing Int",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n",
        400,
        after: [uploadCut()]
    ),
    .fails("chunk size just over Int.max", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n8000000000000000\r\n", 400, after: [uploadCut()]),
    .fails("chunk size Int.max is too large a body", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n", 413, after: [uploadCut()]),
    .fails(
        "chunked total over the body limit",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n7\r\n",
        413, after: [uploadCut("0123456789")],
        limits: smallLimits
    ),
    .fails("chunk data longer than its size", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", 400, after: [uploadCut("ab")]),
    .fails("bare LF after chunk data", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\n0\r\n\r\n", 400, after: [uploadCut("ab")]),
    .fails("bare LF after chunk size", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\r\n0\r\n\r\n", 400, after: [uploadCut()]),
    .fails("chunk extension without name", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;\r\nab\r\n0\r\n\r\n", 400, after: [uploadCut()]),
    .fails("chunk extension with empty value", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\r\nab\r\n0\r\n\r\n", 400, after: [uploadCut()]),
    .fails("chunk extension unterminated quote", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\"b\r\nab\r\n0\r\n\r\n", 400, after: [uploadCut()]),
    .fails("chunk extension with junk", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2 junk\r\nab\r\n0\r\n\r\n", 400, after: [uploadCut()]),
    .fails("trailing whitespace after chunk size", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nab\r\n0\r\n\r\n", 400, after: [uploadCut()]),
    .fails("obs-fold in a trailer", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: b\r\n c\r\n\r\n", 400, after: [uploadCut()]),
    .fails("trailer without colon", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad\r\n\r\n", 400, after: [uploadCut()]),

    // MARK: Limits
    .fails("request line one byte over the limit", "GET /abcdefghijklmnopq HTTP/1.1\r\nHost: x\r\n\r\n", 414, limits: smallLimits),
    .fails("request line over the limit, no LF yet", "GET /abcdefghijklmnopqrstuvwxyz0123456789", 414, limits: smallLimits),
    .fails("header section over the limit", "GET / HTTP/1.1\r\nHost: x\r\nA: 0123456789012345678901234567890123456789012345678\r\n\r\n", 431, limits: smallLimits),
    .fails("header section over the limit, no LF yet", "GET / HTTP/1.1\r\nHost: x\r\nA: 0123456789012345678901234567890123456789012345678901234", 431, limits: smallLimits),
    .fails("too many header fields", "GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", 431, limits: smallLimits),
    .fails("Content-Length over the limit", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n", 413, limits: smallLimits),
    .fails("chunk line over the limit", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;aaaaaaaaaaaaaaaaaa\r\n", 400, after: [uploadCut()], limits: smallLimits),
    .ok(
        "chunk extensions exactly at their total limit",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;aaaaaaaaaa\r\nx\r\n1;bbbbbbbbbb\r\ny\r\n0;c\r\n\r\n",
        .init(method: "POST", path: "/up", framing: .chunked, body: "xy"),
        limits: smallLimits
    ),
    .fails(
        "chunk extensions over their total limit",
        "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;aaaaaaaaaa\r\nx\r\n1;bbbbbbbbbb\r\ny\r\n1;cccccccccc\r\nz\r\n0\r\n\r\n",
        400,
        after: [uploadCut("xy")],
        limits: smallLimits
    ),
    .fails("too many trailer fields", "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", 431, after: [uploadCut()], limits: smallLimits),

    // MARK: Errors after good requests
    .fails("pipelined good request then a bad one", getRoot + "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400, after: [.init()]),
    .fails("TLS ClientHello without LF: rejected at its first byte", "\u{16}\u{3}\u{1}\u{2}\u{0}\u{1}\u{0}\u{1}\u{FC}\u{3}\u{3}", 400),
    .fails("binary junk longer than the request-line limit", "\u{0}" + String(repeating: "a", count: 40), 400, limits: smallLimits),
    .fails("HTTP/2 connection preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
    .fails("good request then garbage", getRoot + "\u{16}\u{3}\u{1}\u{0}\u{1}" + crlf, 400, after: [.init()]),
]
