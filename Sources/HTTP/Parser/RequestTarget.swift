import HTTPTypes

extension RequestParser {
    /// The four forms of request-target (RFC 9112 §3.2).
    enum RequestTarget: Sendable {
        /// `/path?query`
        case origin(path: String)
        /// `http://authority/path?query`; the authority overrides Host (RFC 9112 §3.2.2).
        case absolute(scheme: String, authority: String, path: String)
        /// `host:port`, only with CONNECT.
        case authority(String)
        /// `*`, only with OPTIONS.
        case asterisk

        /// The path and query of the origin and absolute forms.
        var path: String? {
            switch self {
            case .origin(let path), .absolute(_, _, let path): path
            case .authority, .asterisk: nil
            }
        }

        /// Parses and validates a target. Origin-form paths are RFC 3986 pchar and "/" with valid
        /// percent-encoding; queries also allow the other visible ASCII characters browsers send
        /// unencoded. Both accept raw well-formed UTF-8 (as curl sends it), which later
        /// percent-decoding treats like its escaped form. Absolute-form accepts the `http` and `https` schemes only, without userinfo.
        static func parse(_ target: UnsafeRawBufferPointer, method: HTTPRequest.Method) throws(RequestParseError) -> Self {
            if method == .connect {
                guard Authority.isValid(target, allowEmptyHost: false, requirePort: true) else {
                    throw .badRequest("CONNECT needs an authority-form target (host:port)")
                }
                return .authority(target.asString)
            }
            if target.equals("*") {
                guard method == .options else { throw .badRequest("asterisk-form target is only allowed with OPTIONS") }
                return .asterisk
            }
            if target[0] == ASCII.slash {
                try validatePathAndQuery(target)
                return .origin(path: target.asString)
            }
            return try parseAbsolute(target)
        }

        private static func parseAbsolute(_ target: UnsafeRawBufferPointer) throws(RequestParseError) -> Self {
            var colon = 0
            while colon < target.count, target[colon] != ASCII.colon { colon += 1 }
            let scheme = UnsafeRawBufferPointer(rebasing: target[..<colon])
            let schemeName: String
            if scheme.equalsLowercase("http") {
                schemeName = "http"
            } else if scheme.equalsLowercase("https") {
                schemeName = "https"
            } else {
                throw .badRequest("request target is neither origin-form nor an http(s) absolute URI")
            }
            let afterScheme = colon + 1
            guard target.count >= afterScheme + 2, target[afterScheme] == ASCII.slash, target[afterScheme + 1] == ASCII.slash else {
                throw .badRequest("absolute-form target without an authority")
            }
            let authorityStart = afterScheme + 2
            var authorityEnd = authorityStart
            while authorityEnd < target.count, target[authorityEnd] != ASCII.slash, target[authorityEnd] != ASCII.question {
                authorityEnd += 1
            }
            let authority = UnsafeRawBufferPointer(rebasing: target[authorityStart..<authorityEnd])
            guard Authority.isValid(authority, allowEmptyHost: false, requirePort: false) else {
                throw .badRequest("invalid authority in absolute-form target")
            }
            let rest = UnsafeRawBufferPointer(rebasing: target[authorityEnd...])
            try validatePathAndQuery(rest)
            let path: String
            if rest.isEmpty {
                path = "/"
            } else if rest[0] == ASCII.question {
                path = "/" + rest.asString
            } else {
                path = rest.asString
            }
            return .absolute(scheme: schemeName, authority: authority.asString, path: path)
        }

        /// absolute-path [ "?" query ], where the path may also be empty (absolute-form).
        private static func validatePathAndQuery(_ bytes: UnsafeRawBufferPointer) throws(RequestParseError) {
            var inQuery = false
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == ASCII.percent {
                    guard bytes.isPercentEncoded(at: index) else { throw .badRequest("invalid percent-encoding in request target") }
                    index += 3
                    continue
                }
                if byte >= 0x80 {
                    guard let length = UTF8Sequence.length(in: bytes, at: index) else {
                        throw .badRequest("request target is not valid UTF-8")
                    }
                    index += length
                    continue
                }
                if byte == ASCII.question {
                    inQuery = true
                } else if !(inQuery ? ASCII.isQueryChar(byte) : ASCII.isPathChar(byte)) {
                    throw .badRequest("invalid character in request target")
                }
                index += 1
            }
        }
    }

    /// uri-host [ ":" port ] (RFC 3986 §3.2), without userinfo.
    enum Authority {
        static func isValid(_ bytes: UnsafeRawBufferPointer, allowEmptyHost: Bool, requirePort: Bool) -> Bool {
            var index = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                // IP-literal: IPv6address or IPvFuture; checked for its character set only.
                index += 1
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "]") {
                    guard ASCII.isUnreservedOrSubDelim(bytes[index]) || bytes[index] == ASCII.colon else { return false }
                    index += 1
                }
                guard index < bytes.count, index > start else { return false }
                index += 1
            } else {
                let start = index
                while index < bytes.count, bytes[index] != ASCII.colon {
                    let byte = bytes[index]
                    if byte == ASCII.percent {
                        guard bytes.isPercentEncoded(at: index) else { return false }
                        index += 3
                        continue
                    }
                    guard ASCII.isUnreservedOrSubDelim(byte) else { return false }
                    index += 1
                }
                if index == start, !allowEmptyHost { return false }
            }
            if index == bytes.count { return !requirePort }
            guard bytes[index] == ASCII.colon else { return false }
            index += 1
            if requirePort, index == bytes.count { return false }
            while index < bytes.count {
                guard ASCII.isDigit(bytes[index]) else { return false }
                index += 1
            }
            return true
        }
    }
}
