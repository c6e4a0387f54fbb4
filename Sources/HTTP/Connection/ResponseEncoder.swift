import HTTPTypes

/// Turns responses into HTTP/1.1 bytes, adding the fields every response
/// needs: `Date`, `Server`, `X-Request-ID`, `Content-Length` or chunked
/// framing, `Connection`, and gzip with `Vary` when the client accepts it.
///
/// Written straight into one byte array, since this runs for every response. One per
/// worker queue (its date cache is not thread-safe); it knows only what it writes.
final class ResponseEncoder {
    /// `Server: <name>\r\n`, encoded once.
    private let serverField: [UInt8]
    private let dates = DateCache()
    /// Bodies of at least this many bytes are gzipped for clients that accept it (nil: never).
    var gzipThreshold: Int?

    init(serverName: String, gzipThreshold: Int?) {
        var field: [UInt8] = []
        field.append(field: "Server", value: serverName)
        serverField = field
        self.gzipThreshold = gzipThreshold
    }

    func encode(_ response: Response, for exchange: Exchange) -> [UInt8] {
        let status = response.status
        let bodyAllowed = status.code >= 200 && status.code != 204 && status.code != 304
        var body = response.body
        var vary = false
        var gzip = false

        // A scan of the response's few fields: a lookup by name builds their index first (about
        // 2,000 instructions, callgrind of an uncached /search).
        if bodyAllowed, let threshold = gzipThreshold, body.count >= threshold,
           !response.headerFields.contains(where: { $0.name == .contentEncoding }) {
            vary = true
            if let accept = exchange.head.flatMap({ Self.acceptEncoding($0.request.headerFields) }), AcceptEncoding.allowsGzip(accept),
               let compressed = Gzip.compress(body) {
                body = compressed
                gzip = true
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(192 + body.count)
        appendHead(response, exchange: exchange, vary: vary, to: &out)
        if gzip { out.append(bytes: "Content-Encoding: gzip\r\n") }
        if bodyAllowed {
            out.append(bytes: "Content-Length: ")
            out.append(decimal: body.count)
            out.append(bytes: "\r\n")
        }
        out.append(bytes: "\r\n")
        if bodyAllowed && !exchange.isHeadRequest {
            out += body
        }
        return out
    }

    /// The request's `Accept-Encoding` (several fields joined, as the subscript joins them),
    /// found by a scan: the subscript builds an index of every field first (3,000 instructions).
    private static func acceptEncoding(_ fields: HTTPFields) -> String? {
        var found: String?
        for field in fields where field.name == .acceptEncoding {
            found = found.map { $0 + ", " + field.value } ?? field.value
        }
        return found
    }

    /// The head of a streamed response: chunked on HTTP/1.1; on HTTP/1.0 the
    /// body ends when the connection closes.
    func encodeStreamHead(_ response: Response, for exchange: Exchange) -> [UInt8] {
        var out: [UInt8] = []
        if exchange.head?.version == .http1_1 {
            exchange.chunked = true
        } else {
            exchange.closeAfter = true
        }
        appendHead(response, exchange: exchange, vary: false, to: &out)
        if exchange.chunked { out.append(bytes: "Transfer-Encoding: chunked\r\n") }
        out.append(bytes: "\r\n")
        return out
    }

    static func appendLastChunk(for exchange: Exchange) {
        if exchange.chunked { exchange.output.append(bytes: "0\r\n\r\n") }
    }

    private func appendHead(_ response: Response, exchange: Exchange, vary: Bool, to out: inout [UInt8]) {
        exchange.status = response.status.code
        out += Self.statusLine(response.status)
        var hasServer = false
        var hasVary = false
        for field in response.headerFields {
            switch field.name {
            case .contentLength, .transferEncoding, .connection, .date:
                continue  // the encoder's own
            case .server:
                hasServer = true
            case .vary where vary:
                hasVary = true
                out.append(field: field.name.rawName, value: field.value.lowercased().contains("accept-encoding") ? field.value : field.value + ", Accept-Encoding")
                continue
            default:
                break
            }
            out.append(field: field.name.rawName, value: field.value)
        }
        if vary && !hasVary { out.append(bytes: "Vary: Accept-Encoding\r\n") }
        if !hasServer { out += serverField }
        out.append(bytes: "Date: ")
        out += dates.current
        out.append(bytes: "\r\n")
        if !exchange.requestID.isEmpty { out.append(field: "X-Request-ID", value: exchange.requestID) }
        if exchange.closeAfter {
            out.append(bytes: "Connection: close\r\n")
        } else if exchange.head?.version == .http1_0 {
            out.append(bytes: "Connection: keep-alive\r\n")
        }
    }

    /// Status lines of the common statuses with their standard reasons, encoded once.
    private static let commonStatusLines: [(code: Int, reason: String, line: [UInt8])] = {
        let common: [HTTPResponse.Status] = [.ok, .noContent, .notModified, .notFound, .created, .accepted, .badRequest,
                                             .methodNotAllowed, .requestTimeout, .internalServerError, .serviceUnavailable]
        return common.map { ($0.code, $0.reasonPhrase, Array("HTTP/1.1 \($0.code) \($0.reasonPhrase)\r\n".utf8)) }
    }()

    private static func statusLine(_ status: HTTPResponse.Status) -> [UInt8] {
        let code = status.code
        for entry in commonStatusLines where entry.code == code {
            if entry.reason == status.reasonPhrase { return entry.line }
            break
        }
        return Array("HTTP/1.1 \(code) \(status.reasonPhrase)\r\n".utf8)
    }
}

extension Array where Element == UInt8 {
    mutating func append(bytes text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func append(field name: String, value: String) {
        append(contentsOf: name.utf8)
        append(UInt8(ascii: ":"))
        append(UInt8(ascii: " "))
        append(contentsOf: value.utf8)
        append(UInt8(ascii: "\r"))
        append(UInt8(ascii: "\n"))
    }

    mutating func append(decimal value: Int) {
        precondition(value >= 0)
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
            divisor /= 10
        }
    }

    mutating func append(hex value: Int) {
        precondition(value >= 0)
        let digits: StaticString = "0123456789abcdef"
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
        if value == 0 { shift = 0 }
        digits.withUTF8Buffer { table in
            while shift >= 0 {
                append(table[(value >> shift) & 0xF])
                shift -= 4
            }
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: a request's correlation ID, kept from the client or generated.
    public static let xRequestID = HTTPField.Name("X-Request-ID")!
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
}
