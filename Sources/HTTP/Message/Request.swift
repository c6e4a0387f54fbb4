import HTTPTypes

/// A complete request as a handler sees it: the head, path parameters, query
/// items, the body and the connection's details.
public struct Request: Sendable {
    /// Method, authority, path (with query) and header fields, as received.
    public let head: HTTPRequest
    /// The HTTP version of the request line.
    public let version: HTTPVersion
    /// The path without the query, as sent (not percent-decoded).
    public let path: String
    /// Values of the route pattern's `:name` segments (percent-decoded), and
    /// `*` for the rest of the path under a trailing wildcard.
    public internal(set) var parameters: PathParameters
    /// Decoded query items (`+` is a space, percent escapes decoded).
    public let query: QueryItems
    /// The body bytes (the whole body; its size is bounded by the server's limits).
    public let body: [UInt8]
    /// `X-Request-ID` as received (when short and printable) or generated; echoed on the response.
    public let id: String
    /// The client's IP address.
    public let remoteAddress: String

    /// The request method.
    public var method: HTTPRequest.Method { head.method }
    /// The request's header fields.
    public var headerFields: HTTPFields { head.headerFields }

    /// Values of every query item named `name`, in order.
    public func queryItems(named name: String) -> [String] { query.values(named: name) }

    /// Creates a request; the server builds these, tests of handlers may too.
    public init(head: HTTPRequest, version: HTTPVersion = .http1_1, parameters: PathParameters = PathParameters(), body: [UInt8] = [], id: String = "test", remoteAddress: String = "127.0.0.1") {
        self.head = head
        self.version = version
        let target = head.path ?? ""
        if let queryStart = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            self.path = String(target[..<queryStart])
            self.query = QueryItems(String(target[target.utf8.index(after: queryStart)...]))
        } else {
            self.path = target
            self.query = QueryItems("")
        }
        self.parameters = parameters
        self.body = body
        self.id = id
        self.remoteAddress = remoteAddress
    }
}

/// Path parameters of a matched route, by name.
public struct PathParameters: Sendable, Hashable {
    var storage: [(name: String, value: String)] = []

    /// Creates an empty set of parameters.
    public init() {}
    /// Creates parameters from name-value pairs.
    public init(_ pairs: [String: String]) { storage = pairs.map { ($0.key, $0.value) } }

    /// The value for `name`, or nil when the route has no such parameter.
    public subscript(name: String) -> String? {
        storage.first { $0.name == name }?.value
    }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.storage.map(\.name) == rhs.storage.map(\.name) && lhs.storage.map(\.value) == rhs.storage.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        for (name, value) in storage {
            hasher.combine(name)
            hasher.combine(value)
        }
    }
}

/// The decoded items of a query string (`application/x-www-form-urlencoded` rules).
public struct QueryItems: Sendable, Hashable {
    /// Name-value pairs in order; a name without `=` has an empty value.
    public let items: [Item]

    /// One query item.
    public struct Item: Sendable, Hashable {
        public let name: String
        public let value: String
    }

    /// Parses `query` (the part after `?`).
    public init(_ query: String) {
        guard !query.isEmpty else {
            items = []
            return
        }
        items = query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return Item(name: PercentDecoding.decode(pair[..<equals], plusAsSpace: true),
                            value: PercentDecoding.decode(pair[pair.index(after: equals)...], plusAsSpace: true))
            }
            return Item(name: PercentDecoding.decode(pair, plusAsSpace: true), value: "")
        }
    }

    /// The first value named `name`.
    public subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// Every value named `name`, in order.
    public func values(named name: String) -> [String] {
        items.filter { $0.name == name }.map(\.value)
    }
}

/// Percent-decoding for paths and query strings.
enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as space when asked); malformed escapes
    /// stay as they are, invalid UTF-8 becomes U+FFFD.
    static func decode(_ text: Substring, plusAsSpace: Bool) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"),
               let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex), high != utf8.endIndex,
               let low = utf8.index(high, offsetBy: 1, limitedBy: utf8.endIndex), low != utf8.endIndex,
               let h = hexValue(utf8[high]), let l = hexValue(utf8[low]) {
                bytes.append(h << 4 | l)
                index = utf8.index(after: low)
                continue
            }
            bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = utf8.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
