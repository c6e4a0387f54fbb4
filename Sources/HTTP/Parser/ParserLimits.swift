/// Size limits the request parser enforces while bytes arrive.
///
/// Every limit is checked as soon as it can be exceeded, so an attacker can never make
/// the parser buffer more than the limits allow. Lines are measured including their
/// CRLF terminator. The defaults follow issue 3; `ServerConfiguration` holds the values
/// a server actually uses.
public struct ParserLimits: Sendable, Hashable {
    /// Longest request line (method, target, version and CRLF); beyond it: 414. Default 8 KiB.
    public var maxRequestLineLength: Int

    /// Largest header section (all field lines and the closing empty line); beyond it: 431.
    /// The same limit applies to a chunked body's trailer section. Default 32 KiB.
    public var maxHeaderSectionLength: Int

    /// Most header field lines in one request (and trailer lines after a chunked body);
    /// beyond it: 431. Default 100.
    public var maxHeaderFieldCount: Int

    /// Largest request body, whether announced by Content-Length (rejected from the head at
    /// once) or summed over chunks (rejected at the chunk-size line that crosses it): 413.
    /// Default 1 MiB.
    public var maxBodyLength: Int

    /// Larger body limits for the requests they match (say, a bulk import's route): the first
    /// whose method and path match replaces `maxBodyLength` for that request. Empty by default.
    public var largerBodies: [LargerBody] = []

    /// Longest chunk-size line including chunk extensions and CRLF; beyond it: 400.
    /// Default 4 KiB.
    public var maxChunkLineLength: Int

    /// Most bytes of chunk extensions (everything after the size on chunk-size lines) in one
    /// chunked body, summed over its chunks; beyond it: 400. Extensions are ignored, and
    /// without a total a body of 1-byte chunks could carry gigabytes of them (RFC 9112
    /// §7.1.1). Default 16 KiB.
    public var maxChunkExtensionsLength: Int

    /// Creates limits; every argument defaults to the documented value.
    public init(
        maxRequestLineLength: Int = 8 * 1024,
        maxHeaderSectionLength: Int = 32 * 1024,
        maxHeaderFieldCount: Int = 100,
        maxBodyLength: Int = 1024 * 1024,
        maxChunkLineLength: Int = 4 * 1024,
        maxChunkExtensionsLength: Int = 16 * 1024
    ) {
        self.maxRequestLineLength = maxRequestLineLength
        self.maxHeaderSectionLength = maxHeaderSectionLength
        self.maxHeaderFieldCount = maxHeaderFieldCount
        self.maxBodyLength = maxBodyLength
        self.maxChunkLineLength = maxChunkLineLength
        self.maxChunkExtensionsLength = maxChunkExtensionsLength
    }

    /// The body limit of a request with `method` and the path `path` (its query ignored).
    func maxBodyLength(method: String, path: String?) -> Int {
        largerBody(method: method, path: path)?.maxLength ?? maxBodyLength
    }

    /// The rule of a request with `method` and `path` whose body goes to its handler as it
    /// arrives (a ``LargerBody`` that is `streamed`); nil when its body is read whole.
    func streamedBody(method: String, path: String?) -> LargerBody? {
        largerBody(method: method, path: path).flatMap { $0.streamed ? $0 : nil }
    }

    /// The first rule that matches `method` and `path` (its query ignored). Asked for every
    /// request head: a method no rule names (every `GET`) costs a comparison per rule, and the
    /// path is compared bytewise, not split (splitting it cost 4,000 instructions a request).
    private func largerBody(method: String, path: String?) -> LargerBody? {
        guard let path, largerBodies.contains(where: { $0.method == method }) else { return nil }
        let utf8 = path.utf8
        let bare = path.utf8[..<(utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex)]
        return largerBodies.first { $0.matches(method: method, path: bare) }
    }
}

/// A larger body limit for the requests of one method whose path starts and ends as given
/// (`POST` `/collections/` … `/documents`).
public struct LargerBody: Sendable, Hashable {
    public var method: String
    public var pathPrefix: String
    public var pathSuffix: String
    public var maxLength: Int
    /// The handler is called once the head is read and gets the body as it arrives
    /// (``Request/streamedBody``), with at most ``maxBufferedBytes`` waiting unread: a body this
    /// large is then never held whole.
    public var streamed: Bool
    /// Most bytes of a streamed body that wait for its handler before the connection stops
    /// reading. Default 1 MiB.
    public var maxBufferedBytes: Int

    public init(method: String, pathPrefix: String, pathSuffix: String, maxLength: Int, streamed: Bool = false, maxBufferedBytes: Int = 1 << 20) {
        self.method = method
        self.pathPrefix = pathPrefix
        self.pathSuffix = pathSuffix
        self.maxLength = maxLength
        self.streamed = streamed
        self.maxBufferedBytes = maxBufferedBytes
    }

    /// Whether a request with `method` and `path` (no query, as bytes) falls under this rule.
    func matches(method: String, path: Substring.UTF8View) -> Bool {
        let (prefix, suffix) = (pathPrefix.utf8, pathSuffix.utf8)
        return method == self.method && path.count >= prefix.count + suffix.count && path.starts(with: prefix)
            && path.reversed().starts(with: suffix.reversed())
    }
}
