import HTTPTypes
import Rx

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
    /// The body bytes (the whole body; its size is bounded by the server's limits). Empty for a
    /// request whose route streams its body (``LargerBody/streamed``): read ``bodyStream`` then.
    public let body: [UInt8]
    /// The body as it arrives, for a route that streams it; nil when ``body`` is whole.
    public let streamedBody: RequestBodyStream?
    /// `X-Request-ID` as received (when short and printable) or generated; echoed on the response.
    public let id: String
    /// The client's IP address.
    public let remoteAddress: String
    /// The serial scheduler of the connection's queue, where the answer is written; the router
    /// sets it (Hummingbird passes the like in its `RequestContext`). A stream built to deliver
    /// there (`SharingScheduler.building(deliveringOn: request.eventScheduler)`) reaches the
    /// socket with no further hop, and the clients of one worker can share one subscription.
    public internal(set) var eventScheduler: any SchedulerType = Request.unroutedScheduler

    /// The request method.
    public var method: HTTPRequest.Method { head.method }
    /// The request's header fields.
    public var headerFields: HTTPFields { head.headerFields }

    /// The body piece by piece: as it arrives when streamed, else ``body`` as one piece. Either
    /// way a handler can read a large body without holding it whole.
    public var bodyStream: RequestBodyStream { streamedBody ?? RequestBodyStream(whole: body) }

    /// Values of every query item named `name`, in order.
    public func queryItems(named name: String) -> [String] { query.values(named: name) }

    /// Where a request that no router has passed delivers (one serial queue for all of them).
    private static let unroutedScheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "signalbox.http.unrouted")

    /// Creates a request: the connection builds these, and HTTPTesting's `Request.test` for
    /// tests of code that takes one. Not public: a handler is given its requests.
    package init(head: HTTPRequest, version: HTTPVersion, parameters: PathParameters = PathParameters(), body: [UInt8], streamedBody: RequestBodyStream? = nil, id: String, remoteAddress: String) {
        self.head = head
        self.version = version
        let target = head.path ?? ""
        if let queryStart = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            self.path = String(target[..<queryStart])
            self.query = QueryItems(parsing: target[target.utf8.index(after: queryStart)...])
        } else {
            self.path = target
            self.query = QueryItems("")
        }
        self.parameters = parameters
        self.body = body
        self.streamedBody = streamedBody
        self.id = id
        self.remoteAddress = remoteAddress
    }
}

/// Path parameters of a matched route, by name.
public struct PathParameters: Sendable, Hashable {
    var storage: [(name: String, value: String)] = []

    /// Creates an empty set of parameters (the router fills them in).
    package init() {}
    /// Creates parameters from name-value pairs (HTTPTesting's `Request.test`).
    package init(_ pairs: [String: String]) { storage = pairs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }

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
        self.init(parsing: Substring(query))
    }

    init(parsing query: Substring) {
        guard !query.isEmpty else {
            items = []
            return
        }
        var query = query
        // Bytes, not Characters: splitting a String by Character runs grapheme breaking
        // (7,650 instructions of an uncached /search, callgrind).
        items = query.withUTF8 { bytes in
            var items: [Item] = []
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if end > start {
                    let pair = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                        items.append(Item(name: PercentDecoding.decode(UnsafeBufferPointer(rebasing: pair[..<equals]), plusAsSpace: true),
                                          value: PercentDecoding.decode(UnsafeBufferPointer(rebasing: pair[(equals + 1)...]), plusAsSpace: true)))
                    } else {
                        items.append(Item(name: PercentDecoding.decode(pair, plusAsSpace: true), value: ""))
                    }
                }
                start = end + 1
            }
            return items
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
        var text = text
        return text.withUTF8 { decode($0, plusAsSpace: plusAsSpace) }
    }

    /// `decode` of UTF-8 bytes, written straight into the new string's storage.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(unsafeUninitializedCapacity: bytes.count) { output in
            var written = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                   let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                    output[written] = high << 4 | low
                    index += 3
                } else {
                    output[written] = plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte
                    index += 1
                }
                written += 1
            }
            return written
        }
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
