@testable import HTTP
import HTTPTypes
import Testing

/// One request as the parser reported it, flattened for comparison.
struct ParsedRequest: Hashable, CustomStringConvertible {
    var method: String
    var scheme: String?
    var authority: String?
    var path: String?
    var version: HTTPVersion
    var keepAlive: Bool
    var expectContinue: Bool
    var framing: BodyFraming
    /// "Name: value" in the order received (Host is not among them).
    var fields: [String]
    var body: [UInt8] = []
    var complete = false

    init(_ head: RequestHead) {
        method = head.request.method.rawValue
        scheme = head.request.scheme
        authority = head.request.authority
        path = head.request.path
        version = head.version
        keepAlive = head.keepAlive
        expectContinue = head.expectContinue
        framing = head.framing
        fields = head.request.headerFields.map { "\($0.name.rawName): \($0.value)" }
    }

    var description: String {
        "\(method) \(scheme ?? "-") \(authority ?? "-") \(path ?? "-") \(version) keepAlive=\(keepAlive) "
            + "expectContinue=\(expectContinue) \(framing) \(fields) body=\(String(decoding: body, as: UTF8.self).debugDescription)"
            + (complete ? "" : " (incomplete)")
    }
}

/// Everything the parser reported for one input fed in some pieces.
struct ParseOutcome: Hashable, CustomStringConvertible {
    var requests: [ParsedRequest] = []
    var error: RequestParseError?
    var phase: RequestParser.Phase = .idle
    /// Events in order with body pieces joined, to check the event sequence itself.
    var eventKinds: [String] = []

    /// Parses `input` split at `cuts` (sorted offsets strictly inside the input).
    init(_ input: [UInt8], limits: ParserLimits, cuts: [Int]) {
        var parser = RequestParser(limits: limits)
        var requests: [ParsedRequest] = []
        var kinds: [String] = []
        var start = 0
        do {
            for end in cuts + [input.count] {
                try parser.parse(Array(input[start..<end])) { event in
                    switch event {
                    case .head(let head):
                        requests.append(ParsedRequest(head))
                        kinds.append("head")
                    case .body(let bytes):
                        #expect(!bytes.isEmpty, "empty body event")
                        requests[requests.count - 1].body += bytes
                        if kinds.last != "body" { kinds.append("body") }
                    case .end:
                        requests[requests.count - 1].complete = true
                        kinds.append("end")
                    }
                }
                start = end
            }
        } catch {
            self.error = error
        }
        self.requests = requests
        self.eventKinds = kinds
        self.phase = parser.phase
    }

    /// Parses `input` byte by byte.
    init(byteByByte input: [UInt8], limits: ParserLimits) {
        self.init(input, limits: limits, cuts: input.isEmpty ? [] : Array(1..<input.count))
    }

    var description: String {
        "requests: \(requests), error: \(error.map(String.init(describing:)) ?? "none"), phase: \(phase)"
    }
}

/// What a table row expects of one request.
struct ExpectedRequest: Sendable {
    var method = "GET"
    var scheme: String? = nil
    var authority: String? = "x"
    var path: String? = "/"
    var version: HTTPVersion = .http1_1
    var keepAlive = true
    var expectContinue = false
    var framing: BodyFraming = .none
    /// Checked only when set.
    var fields: [String]? = nil
    var body = ""
    var complete = true

    func mismatch(_ actual: ParsedRequest) -> String? {
        var problems: [String] = []
        func check<T: Equatable>(_ name: String, _ expected: T, _ actual: T) {
            if expected != actual { problems.append("\(name): expected \(expected), got \(actual)") }
        }
        check("method", method, actual.method)
        check("scheme", scheme, actual.scheme)
        check("authority", authority, actual.authority)
        check("path", path, actual.path)
        check("version", version, actual.version)
        check("keepAlive", keepAlive, actual.keepAlive)
        check("expectContinue", expectContinue, actual.expectContinue)
        check("framing", framing, actual.framing)
        if let fields { check("fields", fields, actual.fields) }
        check("body", Array(body.utf8), actual.body)
        check("complete", complete, actual.complete)
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}

/// Limits small enough to reach every limit with short inputs.
let smallLimits = ParserLimits(
    maxRequestLineLength: 32,
    maxHeaderSectionLength: 64,
    maxHeaderFieldCount: 3,
    maxBodyLength: 16,
    maxChunkLineLength: 16,
    maxChunkExtensionsLength: 24
)

/// One row of the table: an input and what parsing it must give.
struct ParserCase: Sendable, CustomTestStringConvertible {
    let name: String
    let input: [UInt8]
    let requests: [ExpectedRequest]
    /// The error status expected after those requests, if any.
    let status: Int?
    /// The phase expected at the end, if it matters.
    let phase: RequestParser.Phase?
    let limits: ParserLimits

    var testDescription: String { name }

    /// A row that parses without error.
    static func ok(
        _ name: String, _ input: String, _ requests: ExpectedRequest..., phase: RequestParser.Phase? = nil,
        limits: ParserLimits = ParserLimits()
    ) -> Self {
        .init(name: name, input: Array(input.utf8), requests: requests, status: nil, phase: phase, limits: limits)
    }

    /// A row that fails with `status`, possibly after some complete requests.
    static func fails(
        _ name: String, _ input: String, _ status: Int, after requests: [ExpectedRequest] = [],
        limits: ParserLimits = ParserLimits()
    ) -> Self {
        .init(name: name, input: Array(input.utf8), requests: requests, status: status, phase: .failed, limits: limits)
    }

    /// A row of raw bytes (not necessarily UTF-8) that fails with `status`.
    static func failsBytes(_ name: String, _ input: [UInt8], _ status: Int) -> Self {
        .init(name: name, input: input, requests: [], status: status, phase: .failed, limits: ParserLimits())
    }

    /// Checks a whole-input outcome against the row.
    func mismatch(_ outcome: ParseOutcome) -> String? {
        if outcome.requests.count != requests.count {
            return "expected \(requests.count) requests, got \(outcome)"
        }
        for (expected, actual) in zip(requests, outcome.requests) {
            if let problem = expected.mismatch(actual) { return problem }
        }
        if outcome.error?.status.code != status {
            return "expected status \(status.map(String.init) ?? "none"), got \(outcome.error.map(String.init(describing:)) ?? "none")"
        }
        if let phase, outcome.phase != phase { return "expected phase \(phase), got \(outcome.phase)" }
        return nil
    }
}
