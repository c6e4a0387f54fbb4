import HTTPTypes

extension RequestParser {
    /// A request head being assembled line by line, with the framing-relevant fields noted as
    /// they arrive so the head can be judged once its last line is in.
    struct PendingHead: Sendable {
        var method: HTTPRequest.Method = .get
        var version: HTTPVersion = .http1_1
        var target: RequestTarget = .asterisk
        var fields = HTTPFields()
        var host: String?
        var contentLength: Int?
        var transferCodings = TransferCodings()
        var connectionClose = false
        var connectionKeepAlive = false
        var expectContinue = false

        /// Room reserved at the first field, so that typical heads never regrow the array.
        static let expectedFieldCount = 16

        init() {}

        /// Parses `method SP request-target SP HTTP-version` (RFC 9112 §3), given without CRLF.
        init(requestLine line: UnsafeRawBufferPointer) throws(RequestParseError) {
            guard let firstSpace = line.firstIndex(of: ASCII.space), firstSpace > 0 else {
                throw .badRequest("malformed request line")
            }
            let methodBytes = UnsafeRawBufferPointer(rebasing: line[..<firstSpace])
            let afterMethod = line[(firstSpace + 1)...]
            guard let secondSpace = afterMethod.firstIndex(of: ASCII.space), secondSpace > firstSpace + 1 else {
                throw .badRequest("malformed request line")
            }
            let targetBytes = UnsafeRawBufferPointer(rebasing: line[(firstSpace + 1)..<secondSpace])
            let versionBytes = UnsafeRawBufferPointer(rebasing: line[(secondSpace + 1)...])

            method = try Self.parseMethod(methodBytes)
            version = try Self.parseVersion(versionBytes)
            target = try RequestTarget.parse(targetBytes, method: method)
        }

        private static func parseMethod(_ bytes: UnsafeRawBufferPointer) throws(RequestParseError) -> HTTPRequest.Method {
            if bytes.equals("GET") { return .get }
            if bytes.equals("POST") { return .post }
            if bytes.equals("HEAD") { return .head }
            if bytes.equals("PUT") { return .put }
            if bytes.equals("DELETE") { return .delete }
            if bytes.equals("OPTIONS") { return .options }
            if bytes.equals("PATCH") { return .patch }
            for byte in bytes where !ASCII.isTokenChar(byte) {
                throw .badRequest("invalid character in method")
            }
            guard let method = HTTPRequest.Method(bytes.asString) else { throw .badRequest("invalid method") }
            return method
        }

        /// `HTTP/1.0` or `HTTP/1.1`; another well-formed `HTTP/x.y` is 505, anything else 400.
        private static func parseVersion(_ bytes: UnsafeRawBufferPointer) throws(RequestParseError) -> HTTPVersion {
            if bytes.equals("HTTP/1.1") { return .http1_1 }
            if bytes.equals("HTTP/1.0") { return .http1_0 }
            guard bytes.count == 8, UnsafeRawBufferPointer(rebasing: bytes[..<5]).equals("HTTP/"),
                ASCII.isDigit(bytes[5]), bytes[6] == UInt8(ascii: "."), ASCII.isDigit(bytes[7])
            else {
                throw .badRequest("malformed HTTP version")
            }
            throw RequestParseError(status: .httpVersionNotSupported, reason: "only HTTP/1.0 and HTTP/1.1 are supported")
        }

        /// Notes one header field line and keeps it (except Host, which becomes the authority).
        mutating func addField(_ field: FieldLine) throws(RequestParseError) {
            let name = field.name
            let value = field.value
            let fieldName: HTTPField.Name
            switch name.count {
            case 4 where name.equalsLowercase("host"):
                guard host == nil else { throw .badRequest("more than one Host header field") }
                guard Authority.isValid(value, allowEmptyHost: true, requirePort: false) else {
                    throw .badRequest("invalid Host header field")
                }
                host = value.asString
                return
            case 14 where name.equalsLowercase("content-length"):
                try noteContentLength(value)
                fieldName = .contentLength
            case 17 where name.equalsLowercase("transfer-encoding"):
                try transferCodings.note(value)
                fieldName = .transferEncoding
            case 10 where name.equalsLowercase("connection"):
                try noteConnection(value)
                fieldName = .connection
            case 6 where name.equalsLowercase("expect"):
                if value.equalsLowercase("100-continue") { expectContinue = true }
                fieldName = .expect
            default:
                if let common = RequestParser.commonFieldName(name) {
                    fieldName = common
                } else if let parsed = HTTPField.Name(name.asString) {
                    fieldName = parsed
                } else {
                    throw .badRequest("invalid field name")
                }
            }
            if fields.isEmpty { fields.reserveCapacity(Self.expectedFieldCount) }
            // Strings from ASCII bytes are cheap; obs-text keeps its raw bytes.
            fields.append(field.valueIsASCII ? HTTPField(name: fieldName, value: value.asString) : HTTPField(name: fieldName, value: value))
        }

        /// `Content-Length = 1*DIGIT`; a list of identical values is accepted as one (RFC 9110 §8.6).
        private mutating func noteContentLength(_ value: UnsafeRawBufferPointer) throws(RequestParseError) {
            var length: Int?
            try value.forEachListElement { element throws(RequestParseError) in
                var number = 0
                for byte in element {
                    guard ASCII.isDigit(byte) else { throw .badRequest("Content-Length is not a number") }
                    let digit = Int(byte &- 0x30)
                    guard number <= (Int.max - digit) / 10 else { throw .badRequest("Content-Length overflows") }
                    number = number * 10 + digit
                }
                if let length, length != number { throw .badRequest("conflicting Content-Length values") }
                length = number
            }
            guard let length else { throw .badRequest("empty Content-Length") }
            if let contentLength, contentLength != length { throw .badRequest("conflicting Content-Length values") }
            contentLength = length
        }

        /// Only `close` and `keep-alive` matter; other connection options are not validated.
        private mutating func noteConnection(_ value: UnsafeRawBufferPointer) throws(RequestParseError) {
            try value.forEachListElement { option in
                if option.equalsLowercase("close") { connectionClose = true }
                if option.equalsLowercase("keep-alive") { connectionKeepAlive = true }
            }
        }

        /// Judges the complete head: Host rules, framing, persistence, expectation.
        func finish(limits: ParserLimits) throws(RequestParseError) -> RequestHead {
            if version == .http1_1, host == nil {
                throw .badRequest("HTTP/1.1 request without a Host header field")
            }
            let bodyLimit = limits.maxBodyLength(method: method.rawValue, path: target.path)
            let framing = try bodyFraming(maxBodyLength: bodyLimit)
            var keepAlive = version == .http1_1 ? !connectionClose : connectionKeepAlive && !connectionClose
            if method == .connect { keepAlive = false }  // no tunnels: the server answers and closes
            let hasBody: Bool
            switch framing {
            case .none, .contentLength(0): hasBody = false
            case .contentLength, .chunked: hasBody = true
            }

            let request: HTTPRequest
            switch target {
            case .origin(let path):
                request = HTTPRequest(method: method, scheme: nil, authority: host, path: path, headerFields: fields)
            case .absolute(let scheme, let authority, let path):
                request = HTTPRequest(method: method, scheme: scheme, authority: authority, path: path, headerFields: fields)
            case .authority(let authority):
                request = HTTPRequest(method: method, scheme: nil, authority: authority, path: nil, headerFields: fields)
            case .asterisk:
                request = HTTPRequest(method: method, scheme: nil, authority: host, path: "*", headerFields: fields)
            }
            return RequestHead(
                request: request,
                version: version,
                keepAlive: keepAlive,
                expectContinue: expectContinue && version == .http1_1 && hasBody,
                framing: framing
            )
        }

        /// RFC 9112 §6.1–6.3 for requests.
        private func bodyFraming(maxBodyLength: Int) throws(RequestParseError) -> BodyFraming {
            if transferCodings.present {
                if version == .http1_0 { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
                if contentLength != nil { throw .badRequest("both Content-Length and Transfer-Encoding") }
                if transferCodings.codingAfterChunked { throw .badRequest("chunked is not the final transfer coding") }
                if transferCodings.other {
                    throw RequestParseError(status: .notImplemented, reason: "transfer coding other than chunked")
                }
                guard transferCodings.chunked else { throw .badRequest("empty Transfer-Encoding") }
                return .chunked
            }
            if let contentLength {
                if contentLength > maxBodyLength {
                    throw RequestParseError(status: .contentTooLarge, reason: "body larger than \(maxBodyLength) bytes")
                }
                return .contentLength(contentLength)
            }
            return .none
        }
    }

    /// What the Transfer-Encoding field lines of a request said, in order.
    struct TransferCodings: Sendable {
        var present = false
        var chunked = false
        var other = false
        var codingAfterChunked = false

        /// `transfer-coding = token *( OWS ";" OWS token "=" ( token / quoted-string ) )`, as a list.
        mutating func note(_ value: UnsafeRawBufferPointer) throws(RequestParseError) {
            present = true
            try value.forEachListElement { element throws(RequestParseError) in
                var index = 0
                while index < element.count, ASCII.isTokenChar(element[index]) { index += 1 }
                guard index > 0 else { throw .badRequest("invalid transfer coding") }
                let name = UnsafeRawBufferPointer(rebasing: element[..<index])
                let hasParameters = index < element.count
                if hasParameters {
                    try ParameterList.validate(
                        UnsafeRawBufferPointer(rebasing: element[index...]), valueRequired: true, what: "transfer coding parameter")
                }
                if chunked { codingAfterChunked = true }
                if name.equalsLowercase("chunked") {
                    guard !hasParameters else { throw .badRequest("chunked transfer coding takes no parameters") }
                    chunked = true
                } else {
                    other = true
                }
            }
        }
    }
}
