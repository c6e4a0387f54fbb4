import HTTPTypes

/// Turns responses into HTTP/1.1 bytes, adding the fields every response
/// needs: `Date`, `Server`, `X-Request-ID`, `Content-Length` or chunked
/// framing, `Connection`, and gzip with `Vary` when the client accepts it.
enum ResponseEncoder {
    private static let crlf: [UInt8] = [13, 10]
    private static let separator: [UInt8] = [58, 32]

    /// Fields the encoder owns; a handler's values for them are ignored.
    private static let managed: Set<HTTPField.Name> = [.contentLength, .transferEncoding, .connection, .date]

    static func encode(_ response: Response, for exchange: Exchange, worker: Worker) -> [UInt8] {
        var response = response
        let status = response.status
        let bodyAllowed = status.code >= 200 && status != .noContent && status != .notModified
        var extra = HTTPFields()

        if bodyAllowed, let threshold = worker.settings.gzipThreshold, response.body.count >= threshold,
           response.headerFields[.contentEncoding] == nil {
            appendVary(to: &response.headerFields)
            if let accept = exchange.head?.request.headerFields[.acceptEncoding], AcceptEncoding.allowsGzip(accept),
               let compressed = Gzip.compress(response.body) {
                response.body = compressed
                extra[.contentEncoding] = "gzip"
            }
        }
        var out = head(response, exchange: exchange, worker: worker, extra: extra)
        if bodyAllowed {
            appendField("Content-Length", String(response.body.count), to: &out)
        }
        out += crlf
        if bodyAllowed && !exchange.isHeadRequest {
            out += response.body
        }
        return out
    }

    /// The head of a streamed response: chunked on HTTP/1.1; on HTTP/1.0 the
    /// body ends when the connection closes.
    static func encodeStreamHead(_ response: Response, for exchange: Exchange, worker: Worker) -> [UInt8] {
        var extra = HTTPFields()
        if exchange.head?.version == .http1_1 {
            exchange.chunked = true
            extra[.transferEncoding] = "chunked"
        } else {
            exchange.closeAfter = true
        }
        var out = head(response, exchange: exchange, worker: worker, extra: extra)
        out += crlf
        return out
    }

    static func appendChunk(_ bytes: [UInt8], for exchange: Exchange) {
        guard exchange.chunked else {
            exchange.output += bytes
            return
        }
        exchange.output += Array(String(bytes.count, radix: 16).utf8)
        exchange.output += crlf
        exchange.output += bytes
        exchange.output += crlf
    }

    static func appendLastChunk(for exchange: Exchange) {
        if exchange.chunked { exchange.output += Array("0\r\n\r\n".utf8) }
    }

    private static func head(_ response: Response, exchange: Exchange, worker: Worker, extra: HTTPFields) -> [UInt8] {
        exchange.status = response.status.code
        var out: [UInt8] = []
        out.reserveCapacity(256 + response.body.count)
        out += Array("HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\n".utf8)
        var hasServer = false
        for field in response.headerFields where !managed.contains(field.name) {
            if field.name == .server { hasServer = true }
            appendField(field.name.rawName, field.value, to: &out)
        }
        for field in extra {
            appendField(field.name.rawName, field.value, to: &out)
        }
        if !hasServer { appendField("Server", worker.core.configuration.serverName, to: &out) }
        out += Array("Date: ".utf8)
        out += worker.dates.current
        out += crlf
        if !exchange.requestID.isEmpty { appendField("X-Request-ID", exchange.requestID, to: &out) }
        if exchange.closeAfter {
            appendField("Connection", "close", to: &out)
        } else if exchange.head?.version == .http1_0 {
            appendField("Connection", "keep-alive", to: &out)
        }
        return out
    }

    private static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) {
        out += name.utf8
        out += separator
        out += value.utf8
        out += crlf
    }

    private static func appendVary(to fields: inout HTTPFields) {
        if let vary = fields[.vary] {
            if !vary.lowercased().contains("accept-encoding") { fields[.vary] = vary + ", Accept-Encoding" }
        } else {
            fields[.vary] = "Accept-Encoding"
        }
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: a request's correlation ID, kept from the client or generated.
    public static let xRequestID = HTTPField.Name("X-Request-ID")!
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
}
